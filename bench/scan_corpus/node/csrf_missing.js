// expect: CWE-352 (forms post with a session cookie and no CSRF middleware)
const express = require("express");
const session = require("express-session");
// const csrf = require("csurf");
const app = express();

app.use(express.urlencoded({ extended: false }));
app.use(session({ secret: process.env.SESSION_SECRET, resave: false, saveUninitialized: false,
  cookie: { httpOnly: true, secure: true, sameSite: "lax" } }));
// app.use(csrf());

app.post("/transfer", (req, res) => {
  res.send("ok");
});

app.listen(3000);
