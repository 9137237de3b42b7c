print("fleet")
