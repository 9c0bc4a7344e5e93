# expect: CWE-918 (the server fetches whatever URL it is given)
import requests
from flask import Flask, request

app = Flask(__name__)


@app.route("/preview")
def preview():
    url = request.args["url"]
    answer = requests.get(url, timeout=5)
    return {"status": answer.status_code}
