"""A moto S3 server on a loopback port for lakeindex's tests.

    moto_server.py [--bucket NAME ...] [--auth]

Starts moto (the S3 emulator shipped with the machine image's Python) on 127.0.0.1 and a free
port, creates the buckets with boto3, prints one line of JSON ({"endpoint", "access_key",
"secret_key"}) and serves until its standard input closes (so it stops with the test that
started it, even if that test crashes). With --auth, requests must be signed by the printed
key pair: moto then checks SigV4 signatures the way botocore computes them, and an IAM policy
allowing s3:* is attached to the key's user.
"""
import argparse
import json
import os
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--bucket", action="append", default=[])
parser.add_argument("--auth", action="store_true")
args = parser.parse_args()

setup_actions = 3 + len(args.bucket)  # create_user, put_user_policy, create_access_key, buckets
if args.auth:
    # Read by moto at import: the first N requests need no credentials (our own setup).
    os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = str(setup_actions)

try:
    import threading
    import boto3
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
    from moto.server import ThreadedMotoServer
    from werkzeug.serving import make_server
except ImportError as e:  # say what is missing, in the words of the guide
    sys.exit(f"moto_server.py: {e}; the S3 tests need moto and boto3 (pip package 'moto[server]')")


class AtomicConditionalWrites:
    """moto checks a conditional write's precondition and then writes, while other requests'
    threads run: two `If-None-Match: *` PUTs of one key can both succeed (seen once in ~100 runs
    of the conformance test's 8 racing writers), which S3 never allows. Conditional writes run one
    at a time here, as S3 runs each atomically; every other request stays concurrent."""

    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        conditional = environ.get("REQUEST_METHOD") in ("PUT", "POST") and (
            "HTTP_IF_NONE_MATCH" in environ or "HTTP_IF_MATCH" in environ)
        if not conditional:
            return self.app(environ, start_response)
        with self.lock:
            return list(self.app(environ, start_response))  # the write happens while the body is made


class Server(ThreadedMotoServer):
    def _server_entry(self):
        app = AtomicConditionalWrites(DomainDispatcherApplication(create_backend_app))
        self._server = make_server(self._ip_address, self._port, app, True)
        self._server_ready_event.set()
        self._server.serve_forever()


server = Server(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
endpoint = f"http://127.0.0.1:{server._server.server_port}"
setup = dict(endpoint_url=endpoint, region_name="us-east-1",
             aws_access_key_id="setup", aws_secret_access_key="setup")
key_id, secret = "testing", "testing"
if args.auth:
    iam = boto3.client("iam", **setup)
    iam.create_user(UserName="lakeindex")
    iam.put_user_policy(UserName="lakeindex", PolicyName="s3", PolicyDocument=json.dumps(
        {"Version": "2012-10-17",
         "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="lakeindex")["AccessKey"]
    key_id, secret = key["AccessKeyId"], key["SecretAccessKey"]
else:
    boto3.client("iam", **setup)  # no IAM calls needed; keep the count of setup actions simple
s3 = boto3.client("s3", **setup)
for bucket in args.bucket:
    s3.create_bucket(Bucket=bucket)
print(json.dumps({"endpoint": endpoint, "access_key": key_id, "secret_key": secret}), flush=True)
try:
    sys.stdin.read()
finally:
    server.stop()
