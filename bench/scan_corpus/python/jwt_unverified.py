# expect: CWE-347 (the API reads a token's claims without checking its signature)
import jwt


def current_user(token):
    claims = jwt.decode(token, options={"verify_signature": False})
    return claims["sub"]
