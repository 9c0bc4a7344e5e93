// expect: none (the token's signature and algorithm are checked before its claims are used)
const jwt = require("jsonwebtoken");

function authenticate(req, res, next) {
  const token = req.headers.authorization.replace("Bearer ", "");
  jwt.verify(token, process.env.JWT_PUBLIC_KEY, { algorithms: ["RS256"] });
  req.userId = jwt.decode(token).sub;
  next();
}

module.exports = { authenticate };
