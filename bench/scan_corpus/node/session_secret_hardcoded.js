// expect: CWE-798 (the session signing secret is a phrase written in the code)
const express = require("express");
const session = require("express-session");
const csrf = require("csurf");
const app = express();

app.use(session({
  secret: "correct horse battery staple",
  resave: false,
  saveUninitialized: false,
  cookie: { httpOnly: true, secure: true, sameSite: "lax" }
}));
app.use(csrf());

app.listen(3000);
