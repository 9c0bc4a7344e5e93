# expect: none (the session signing key comes from the environment)
import os

from flask import Flask

app = Flask(__name__)
app.secret_key = os.environ["FLASK_SECRET_KEY"]
app.config["SESSION_COOKIE_SECURE"] = True
