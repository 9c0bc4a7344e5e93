# expect: CWE-601 (after login the user is sent wherever ?next= points)
from flask import Flask, redirect, request

app = Flask(__name__)


@app.route("/login", methods=["POST"])
def login():
    target = request.args.get("next", "/")
    return redirect(target)
