"""A TCP listener that counts connections (debuginfod.sh): writes its port
to argv[1] once listening, then appends one line to argv[2] per connection it
accepts and closes the connection at once (a client then fails fast)."""
import socket
import sys

s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept()
    c.close()
    with open(sys.argv[2], "a") as f:
        f.write("connection\n")
