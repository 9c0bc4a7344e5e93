# expect: CWE-79 (the search term echoed into HTML)
from flask import Flask, request

app = Flask(__name__)


@app.route("/search")
def search():
    term = request.args.get("q", "")
    return "<h1>Results for " + term + "</h1>"
