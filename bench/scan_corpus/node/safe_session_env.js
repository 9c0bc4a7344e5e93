// expect: none (secret from the environment; Secure cookie decided by an expression; CSRF middleware)
const express = require("express");
const session = require("express-session");
const csrf = require("csurf");
const app = express();
const production = process.env.NODE_ENV === "production";

app.set("trust proxy", 1);
app.use(session({
  secret: process.env.SESSION_SECRET,
  resave: false,
  saveUninitialized: false,
  cookie: { httpOnly: true, secure: production, sameSite: "lax" }
}));
app.use(csrf());

app.listen(3000);
