# expect: CWE-614 (the session cookie is set without Secure or HttpOnly)
from flask import Flask, make_response, redirect

app = Flask(__name__)


def start_session(username, token):
    response = make_response(redirect("/"))
    response.set_cookie("session", token)
    return response
