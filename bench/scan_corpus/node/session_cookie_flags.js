// expect: CWE-614 (the session cookie is sent without Secure / HttpOnly)
const express = require("express");
const session = require("express-session");
const csrf = require("csurf");
const app = express();

app.use(session({
  secret: process.env.SESSION_SECRET,
  saveUninitialized: true,
  resave: true
  // cookie: { httpOnly: true, secure: true }
}));
app.use(csrf());

app.listen(3000);
