# expect: none (the value is passed as a query parameter)
import sqlite3

from flask import Flask, request

app = Flask(__name__)


@app.route("/user")
def user():
    db = sqlite3.connect("app.db")
    row = db.execute("SELECT name FROM users WHERE id = ?", (request.args["id"],)).fetchone()
    return {"name": row[0] if row else None}
