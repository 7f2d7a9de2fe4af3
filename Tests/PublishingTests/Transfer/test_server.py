# The HTTP server of the transfer tests (TestServer.swift): serves a folder on 127.0.0.1
# and misbehaves on request, as faults.json says; logs each request as "path status".
import gzip, hashlib, json, os, sys, threading, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler

root, faults_file, log_file = sys.argv[1], sys.argv[2], sys.argv[3]
failed_once = set()
lock = threading.Lock()

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def log(self, path, status):
        with lock:
            with open(log_file, "a") as f:
                f.write("%s %d\n" % (path, status))

    def plain(self, path, status, text):
        self.log(path, status)
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.close_connection = True
        path = self.path.split("?")[0]
        try:
            with open(faults_file) as f:
                faults = json.load(f)
        except (FileNotFoundError, ValueError):
            faults = {}
        fault = faults.get(path)
        if fault == "500":
            return self.plain(path, 500, "always failing")
        if fault == "500-once":
            with lock:
                first = path not in failed_once
                failed_once.add(path)
            if first:
                return self.plain(path, 500, "failing once")
        if fault == "404":
            return self.plain(path, 404, "not here")
        if fault == "304":
            # A broken cache or mirror: Not Modified, whatever the request asked.
            self.log(path, 304)
            self.send_response(304)
            self.send_header("Connection", "close")
            self.end_headers()
            return
        if fault == "claims-3GB":
            # A length far past any limit, and then nothing: only the header says how large.
            self.log(path, 200)
            self.send_response(200)
            self.send_header("Content-Length", str(3 << 30))
            self.end_headers()
            self.wfile.flush()
            time.sleep(60)
            return
        if fault and fault.startswith("redirect:"):
            self.log(path, 302)
            self.send_response(302)
            self.send_header("Location", fault[len("redirect:"):])
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            return
        local = os.path.normpath(os.path.join(root, path.lstrip("/")))
        if not local.startswith(os.path.abspath(root)) or not os.path.isfile(local):
            return self.plain(path, 404, "not found")
        with open(local, "rb") as f:
            body = f.read()
        etag = '"%s"' % hashlib.sha256(body).hexdigest()[:16]
        last_modified = "Mon, 01 Jan 2024 00:00:00 GMT"
        if self.headers.get("If-None-Match") == etag:
            self.log(path, 304)
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Connection", "close")
            self.end_headers()
            return
        headers = [("ETag", etag), ("Last-Modified", last_modified)]
        if fault == "gzip-encoding":
            body = gzip.compress(body, mtime=0)
            headers.append(("Content-Encoding", "gzip"))
        if fault == "corrupt":
            middle = len(body) // 2
            body = body[:middle] + bytes([body[middle] ^ 0xFF]) + body[middle + 1:]
        if fault == "slow":
            time.sleep(4)
        self.log(path, 200)
        try:
            self.send_response(200)
            for name, value in headers:
                self.send_header(name, value)
            if fault == "no-length":
                # The whole body, then the connection held open: only a close would end it.
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
                time.sleep(60)
                return
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if fault == "truncate":
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                return
            if fault == "drip":
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(0.5)
                return
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

class Server(ThreadingHTTPServer):
    daemon_threads = True

server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
