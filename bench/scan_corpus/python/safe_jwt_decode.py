# expect: none (the signature and algorithm are checked)
import os

import jwt


def current_user(token):
    claims = jwt.decode(token, os.environ["JWT_PUBLIC_KEY"], algorithms=["RS256"])
    return claims["sub"]
