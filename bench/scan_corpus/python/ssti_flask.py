# expect: CWE-1336 (a greeting template built from the query string: {{ }} runs on the server)
from flask import Flask, render_template_string, request

app = Flask(__name__)


@app.route("/hello")
def hello():
    name = request.args.get("name", "guest")
    template = "<h1>Hello " + name + "</h1>"
    return render_template_string(template)
