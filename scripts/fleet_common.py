"""What the fleet proofs share (scripts/outbox-fleet.py, scripts/ratelimit-fleet.py): the fleet binary, psql against
the test database, the fault server's JSON, and restarting or killing the PostgreSQL of scripts/test-servers.sh.

Every function reads the variables scripts/test-servers.sh writes (ENDPOINTKIT_POSTGRES_URL, _BIN, _DATA,
ENDPOINTKIT_FAULT_URL) and ENDPOINTKIT_BIN, a build folder holding EndpointKitPostgresFleet.
"""

import json
import os
import shlex
import signal
import subprocess
import sys
import time
import urllib.request

ENV = os.environ


def fleet_binary(tool):
    folder = ENV.get("ENDPOINTKIT_BIN")
    if not folder:
        sys.exit(f"{tool}: set ENDPOINTKIT_BIN to a build folder holding EndpointKitPostgresFleet")
    return os.path.join(folder, "EndpointKitPostgresFleet")


def psql(sql):
    """Runs `sql` with psql against the test database; returns its rows as lists of text."""
    out = subprocess.run(
        [os.path.join(ENV["ENDPOINTKIT_POSTGRES_BIN"], "psql"), ENV["ENDPOINTKIT_POSTGRES_URL"], "-AtqX", "-F", "\t",
         "-c", sql],
        capture_output=True, text=True, check=True,
    ).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def psql_retrying(sql, seconds=60):
    deadline = time.monotonic() + seconds
    while True:
        try:
            return psql(sql)
        except subprocess.CalledProcessError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def get_json(path):
    with urllib.request.urlopen(ENV["ENDPOINTKIT_FAULT_URL"] + path, timeout=30) as answer:
        return json.load(answer)


def as_owner(command):
    return (["runuser", "-u", "postgres", "--"] + command) if os.geteuid() == 0 else command


def pg_ctl(*arguments):
    data = ENV["ENDPOINTKIT_POSTGRES_DATA"]
    subprocess.run(as_owner([os.path.join(ENV["ENDPOINTKIT_POSTGRES_BIN"], "pg_ctl"), *arguments, "-D", data, "-w",
                             "-l", os.path.join(os.path.dirname(data), "restarts.log")]),
                   check=True, stdout=subprocess.DEVNULL)


def restart_postgres():
    """An immediate restart: every connection cut, the server back at once (it waits until it accepts)."""
    pg_ctl("restart", "-m", "immediate")


def kill_postgres(down_seconds):
    """SIGKILL of the postmaster: the server is gone for `down_seconds`, then started again with the options it
    ran with (its port, its socket folder: `pg_ctl start` alone would take the defaults)."""
    data = ENV["ENDPOINTKIT_POSTGRES_DATA"]
    with open(os.path.join(data, "postmaster.opts")) as opts_file:
        words = shlex.split(opts_file.read())[1:]
    options = [word for index, word in enumerate(words) if word != "-D" and (index == 0 or words[index - 1] != "-D")]
    with open(os.path.join(data, "postmaster.pid")) as pid_file:
        pid = int(pid_file.readline())
    os.kill(pid, signal.SIGKILL)
    time.sleep(down_seconds)
    # Its backends notice the postmaster's death and end. Until the dead postmaster is reaped, the next start takes it
    # for a running server (its lock files name it); a container whose first process never reaps it keeps it as a
    # zombie, whose lock files then go.
    deadline = time.monotonic() + 10
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if running(pid):
        socket_folder = next((word.split("=", 1)[1] for word in options if word.startswith("unix_socket_directories=")),
                             None)
        locks = [os.path.join(data, "postmaster.pid")]
        if socket_folder:
            locks += [os.path.join(socket_folder, name) for name in os.listdir(socket_folder) if name.endswith(".lock")]
        subprocess.run(as_owner(["rm", "-f", *locks]), check=True)
    pg_ctl("start", "-o", shlex.join(options))


def running(pid):
    """Whether process `pid` exists, if only as a zombie."""
    return os.path.exists(f"/proc/{pid}")
