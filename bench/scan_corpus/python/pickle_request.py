# expect: CWE-502 (a pickled session restored from the request)
import base64
import pickle

from flask import Flask, request

app = Flask(__name__)


@app.route("/restore", methods=["POST"])
def restore():
    state = pickle.loads(base64.b64decode(request.form["state"]))
    return {"keys": sorted(state)}
