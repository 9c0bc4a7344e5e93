# expect: CWE-89 (SQL formatted with a request value)
import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/user")
def user():
    db = sqlite3.connect("app.db")
    cursor = db.cursor()
    user_id = request.args["id"]
    cursor.execute("SELECT name FROM users WHERE id = '%s'" % user_id)
    return {"name": cursor.fetchone()[0]}
