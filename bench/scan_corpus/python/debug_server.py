# expect: CWE-94 (the Werkzeug debugger exposed: anyone who reaches it runs code)
from flask import Flask

app = Flask(__name__)

if __name__ == "__main__":
    app.run(host="0.0.0.0", debug=True)
