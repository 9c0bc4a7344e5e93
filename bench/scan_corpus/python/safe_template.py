# expect: none (a template file renders the value with autoescaping; the redirect target is fixed)
from flask import Flask, redirect, render_template, request, url_for

app = Flask(__name__)


@app.route("/hello")
def hello():
    return render_template("hello.html", name=request.args.get("name", "guest"))


@app.route("/old")
def old():
    return redirect(url_for("hello"))
