// expect: CWE-347 (the middleware trusts a token it only decodes: any forged token passes)
const jwt = require("jsonwebtoken");

function authenticate(req, res, next) {
  const claims = jwt.decode(req.headers.authorization.replace("Bearer ", ""));
  req.userId = claims.sub;
  next();
}

module.exports = { authenticate };
