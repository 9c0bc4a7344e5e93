# expect: none (the template source is constant; the message is a template variable, autoescaped)
from flask import Flask, render_template_string

app = Flask(__name__)
PAGE = "<h1>Something failed</h1><p>{{ message }}</p>"


@app.errorhandler(500)
def failure(error):
    return render_template_string(PAGE, message=str(error)), 500
