# expect: none (the file name is reduced to its base name; the URL is fixed; numbers are parsed)
import os

import requests
from flask import Flask, request
from werkzeug.utils import secure_filename

app = Flask(__name__)
BASE = "/srv/reports"


@app.route("/report")
def report():
    name = secure_filename(request.args["file"])
    with open(os.path.join(BASE, name)) as handle:
        return {"text": handle.read()}


@app.route("/rate")
def rate():
    days = int(request.args.get("days", "7"))
    answer = requests.get("https://api.example.com/rates", params={"days": days}, timeout=5)
    return {"status": answer.status_code}
