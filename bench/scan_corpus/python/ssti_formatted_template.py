# expect: CWE-1336 (an error page formats text into the template's source: {{ }} in it runs on the server)
from flask import Flask, render_template_string

app = Flask(__name__)


@app.errorhandler(500)
def failure(error):
    page = "<h1>Something failed</h1><p>%s</p>" % str(error)
    return render_template_string(page), 500
