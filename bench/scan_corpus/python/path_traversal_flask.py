# expect: CWE-22 (a download path taken from the request)
import os

from flask import Flask, request

app = Flask(__name__)
BASE = "/srv/reports"


@app.route("/report")
def report():
    name = request.args["file"]
    with open(os.path.join(BASE, name)) as handle:
        return handle.read()
