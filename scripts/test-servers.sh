#!/usr/bin/env bash
# Starts and stops the loopback servers the integration tests talk to.
#
#   scripts/test-servers.sh start DIR   installs what is missing, starts httpbin (gunicorn), nginx and the fault
#                                       server (scripts/fault-server.py) on free
#                                       127.0.0.1 ports, waits until they answer, and writes DIR/env with
#                                       the ENDPOINTKIT_* variables and DIR/pids with their PIDs. nginx also
#                                       serves https with a certificate from a test CA made for this run
#                                       (DIR/tls/ca.crt, which scripts/with-test-ca.sh makes trusted for one
#                                       command), and with one from a CA nobody trusts; and PostgreSQL
#                                       (scripts/postgres.sh), whose variables DIR/env carries too
#   scripts/test-servers.sh stop DIR    stops them by PID
set -euo pipefail
cd "$(dirname "$0")/.."

command=${1:?usage: test-servers.sh start|stop DIR}
state=${2:?usage: test-servers.sh start|stop DIR}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install_missing() {
    if ! python3 -c 'import httpbin, gunicorn' 2>/dev/null; then
        echo "test-servers: installing httpbin and gunicorn from PyPI"
        python3 -m pip install --quiet --disable-pip-version-check httpbin gunicorn \
            || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages httpbin gunicorn
    fi
    # The HAR tests check recordings with three independent readers: a JSON Schema validator, haralyzer, mitmproxy.
    # Each runs through this python3 (scripts/validate-har.py), never from PATH, where a new script may not be yet.
    if ! python3 -c 'import jsonschema, haralyzer, mitmproxy' 2>/dev/null; then
        echo "test-servers: installing jsonschema, haralyzer and mitmproxy from PyPI"
        python3 -m pip install --quiet --disable-pip-version-check jsonschema haralyzer mitmproxy \
            || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages \
                jsonschema haralyzer mitmproxy
    fi
    python3 scripts/validate-har.py --check-readers
    local packages=()
    if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then packages+=(nginx-light); fi
    # curl checks the servers are up, and the cURL tests run the commands EndpointKit prints.
    if ! command -v curl >/dev/null; then packages+=(curl); fi
    # openssl makes the test CA; ca-certificates is the system's trust store the test CA joins for a run.
    if ! command -v openssl >/dev/null; then packages+=(openssl); fi
    if [ ! -f /etc/ssl/certs/ca-certificates.crt ]; then packages+=(ca-certificates); fi
    if [ ${#packages[@]} -gt 0 ]; then
        echo "test-servers: installing ${packages[*]} from Debian"
        as_root apt-get update -qq
        # Newer Debian releases fold nginx-light into nginx.
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null \
            || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]/nginx-light/nginx}" \
                >/dev/null
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

wait_for() {
    local url=$1 name=$2 pid=$3
    for _ in $(seq 1 100); do
        if curl -fsS -o /dev/null "$url" 2>/dev/null; then return 0; fi
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "test-servers: $name exited during start-up; its log:" >&2
            cat "$state/$name.log" >&2 || true
            return 1
        fi
        sleep 0.1
    done
    echo "test-servers: $name did not answer at $url within 10 s" >&2
    return 1
}

# A CA and a server certificate it signs for 127.0.0.1 and localhost, valid for two days: make_ca DIR NAME.
make_ca() {
    local dir=$1 name=$2
    mkdir -p "$dir"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -keyout "$dir/ca.key" -out "$dir/ca.crt" -subj "/CN=$name" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout "$dir/server.key" -out "$dir/server.csr" -subj "/CN=127.0.0.1" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
        >"$dir/server.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
        -extfile "$dir/server.ext" -out "$dir/server.crt" 2>/dev/null
    rm -f "$dir/ca.key"  # nothing else is ever signed by it
    chmod 644 "$dir"/*.crt "$dir"/server.key
}

start() {
    install_missing
    mkdir -p "$state/www" "$state/nginx"
    # nginx's workers run as an unprivileged user when started as root: they must be able to read the files.
    mkdir -p "$state/www/uploads"
    chmod 755 "$state" "$state/www"
    chmod 777 "$state/www/uploads"
    : >"$state/pids"

    local httpbin_port nginx_port echo_port
    httpbin_port=$(free_port)
    # gthread workers: the integration tests hold many slow requests (/delay, /drip) open at once.
    # Idle connections are kept 75 s, as nginx keeps them, longer than a client's pool (AsyncHTTPClient's 60 s):
    # with gunicorn's 2 s, a loaded machine saw the server close a connection as the client reused it.
    python3 -m gunicorn --bind "127.0.0.1:$httpbin_port" --worker-class gthread --workers 2 --threads 64 \
        --timeout 120 --graceful-timeout 2 --keep-alive 75 --log-level warning httpbin:app \
        >"$state/httpbin.log" 2>&1 &
    echo $! >>"$state/pids"
    wait_for "http://127.0.0.1:$httpbin_port/get" httpbin $!

    nginx_port=$(free_port)
    echo_port=$(free_port)
    head -c 65536 /dev/urandom >"$state/www/random-64k.bin"
    echo '{"result": {"id": 7, "name": "static"}}' >"$state/www/item.json"
    # {"result": User} of about 1 KB and 100 KB, for the URLSession comparison benchmark.
    for size in 1024 102400; do
        python3 -c 'import json, sys; n = int(sys.argv[1]); bio = "x" * (n - 90)
print(json.dumps({"result": {"id": 1, "name": "Ada", "email": "ada@example.com", "bio": bio}}))' "$size" \
            >"$state/www/user-$((size / 1024))k.json"
    done
    chmod 644 "$state/www"/*.*
    make_ca "$state/tls" "EndpointKit Test CA"
    make_ca "$state/tls/untrusted" "EndpointKit Untrusted CA"
    local https_port untrusted_port http2_port
    https_port=$(free_port)
    untrusted_port=$(free_port)
    http2_port=$(free_port)
    local nginx_bin
    nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
    cat >"$state/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $state/nginx/nginx.pid;
error_log $state/nginx.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $state/nginx/body;
    proxy_temp_path $state/nginx/proxy;
    fastcgi_temp_path $state/nginx/fastcgi;
    uwsgi_temp_path $state/nginx/uwsgi;
    scgi_temp_path $state/nginx/scgi;
    types { application/json json; application/octet-stream bin; }
    server {
        listen 127.0.0.1:$nginx_port;
        root $state/www;
        # WebDAV PUT stores request bodies byte for byte, for checking large streamed uploads.
        location /uploads/ {
            dav_methods PUT DELETE;
            create_full_put_path on;
            client_max_body_size 0;
        }
        # 503 with Retry-After: 1, for retry tests.
        location = /retry-after {
            add_header Retry-After 1 always;
            return 503;
        }
        # Accepts only the bearer token "fresh", for token refresh tests.
        location = /protected {
            default_type application/json;
            if (\$http_authorization != "Bearer fresh") {
                return 401;
            }
            return 200 '{"id": 1, "name": "protected"}';
        }
    }
    # https with the test CA's certificate: the static files, the Authorization header echoed back, and redirects
    # to plain http and to the untrusted server.
    server {
        listen 127.0.0.1:$https_port ssl;
        ssl_certificate $state/tls/server.crt;
        ssl_certificate_key $state/tls/server.key;
        root $state/www;
        location = /authorization {
            default_type application/json;
            return 200 '{"authorization": "\$http_authorization"}';
        }
        location = /to-http {
            return 302 http://127.0.0.1:$nginx_port/item.json;
        }
        location = /to-https {
            return 302 https://127.0.0.1:$https_port/item.json;
        }
        location = /to-untrusted {
            return 302 https://127.0.0.1:$untrusted_port/item.json;
        }
    }
    # HTTP/2 over TLS (by ALPN) with the test CA's certificate: the static files, the Authorization header echoed
    # back, and WebDAV uploads, for transports that speak HTTP/2.
    server {
        listen 127.0.0.1:$http2_port ssl http2;
        ssl_certificate $state/tls/server.crt;
        ssl_certificate_key $state/tls/server.key;
        root $state/www;
        location = /authorization {
            default_type application/json;
            return 200 '{"authorization": "\$http_authorization", "protocol": "\$server_protocol"}';
        }
        location /uploads/ {
            dav_methods PUT DELETE;
            create_full_put_path on;
            client_max_body_size 0;
        }
    }
    # https with a certificate from a CA that nobody trusts.
    server {
        listen 127.0.0.1:$untrusted_port ssl;
        ssl_certificate $state/tls/untrusted/server.crt;
        ssl_certificate_key $state/tls/untrusted/server.key;
        root $state/www;
    }
    # Echoes the request line's method and target exactly as received, before any decoding.
    server {
        listen 127.0.0.1:$echo_port;
        location / {
            default_type text/plain;
            return 200 "\$request_method \$request_uri";
        }
    }
}
CONF
    "$nginx_bin" -p "$state/nginx" -c "$state/nginx/nginx.conf" >"$state/nginx.log" 2>&1 &
    echo $! >>"$state/pids"
    wait_for "http://127.0.0.1:$nginx_port/item.json" nginx $!

    local fault_port
    fault_port=$(free_port)
    python3 scripts/fault-server.py "$fault_port" >"$state/fault.log" 2>&1 &
    echo $! >>"$state/pids"
    wait_for "http://127.0.0.1:$fault_port/count/start" fault-server $!

    cat >"$state/env" <<ENV
export ENDPOINTKIT_HTTPBIN_URL=http://127.0.0.1:$httpbin_port
export ENDPOINTKIT_NGINX_URL=http://127.0.0.1:$nginx_port
export ENDPOINTKIT_ECHO_URL=http://127.0.0.1:$echo_port
export ENDPOINTKIT_FAULT_URL=http://127.0.0.1:$fault_port
export ENDPOINTKIT_HTTPS_URL=https://127.0.0.1:$https_port
export ENDPOINTKIT_UNTRUSTED_HTTPS_URL=https://127.0.0.1:$untrusted_port
export ENDPOINTKIT_HTTP2_URL=https://127.0.0.1:$http2_port
export ENDPOINTKIT_TEST_CA=$state/tls/ca.crt
ENV
    curl -fsS -o /dev/null --cacert "$state/tls/ca.crt" "https://127.0.0.1:$https_port/item.json" \
        || { echo "test-servers: nginx's https server does not answer" >&2; return 1; }
    # PostgreSQL, for the PostgreSQL outbox's tests and its fleet proof (installed from Debian when missing).
    scripts/postgres.sh start "$state"
    cat "$state/postgres.env" >>"$state/env"
    echo "test-servers: httpbin on $httpbin_port, nginx on $nginx_port (static), $echo_port (request echo)," \
        "$https_port (https, test CA), $http2_port (HTTP/2, test CA) and $untrusted_port (https, untrusted CA)," \
        "fault server on $fault_port"
}

stop() {
    scripts/postgres.sh stop "$state" || true
    [ -f "$state/pids" ] || return 0
    while read -r pid; do
        kill "$pid" 2>/dev/null || true
    done <"$state/pids"
    for _ in $(seq 1 50); do
        local alive=0
        while read -r pid; do kill -0 "$pid" 2>/dev/null && alive=1; done <"$state/pids"
        [ "$alive" = 0 ] && break
        sleep 0.1
    done
    while read -r pid; do kill -9 "$pid" 2>/dev/null || true; done <"$state/pids"
    rm -f "$state/pids"
}

case "$command" in
start) start ;;
stop) stop ;;
*) echo "usage: test-servers.sh start|stop DIR" >&2; exit 64 ;;
esac
