# expect: none (the session cookie carries Secure, HttpOnly and SameSite)
from flask import Flask, make_response, redirect

app = Flask(__name__)


def start_session(username, token):
    response = make_response(redirect("/"))
    response.set_cookie("session", token, secure=True, httponly=True, samesite="Lax")
    return response
