# expect: CWE-798 (the session signing key is written in the code)
from flask import Flask

app = Flask(__name__)
app.secret_key = "my super secret key"
