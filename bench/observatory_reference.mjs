// Scores header sets with the MDN HTTP Observatory's own analyzers and grader (an installed copy of the
// @mdn/mdn-http-observatory npm package, MPL-2.0), for bench/observatory_agreement.py.
//
//   node bench/observatory_reference.mjs /path/to/package < cases.json > results.json
//
// Each case: {scheme, host, headers: [[name, value], ...], body}. The requests object is built the way the
// reference's retriever fills it for a site that answers on `scheme` (https: http redirects to https on the same
// host; http: no https, no redirect): headers joined as Node's HTTP client joins them, Set-Cookie kept as a list and
// stored in the session's cookie jar, <meta http-equiv> read from an HTML body. No network is used.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = process.argv[2];
if (!root) {
  console.error("usage: node observatory_reference.mjs PACKAGE_DIR < cases.json");
  process.exit(2);
}
const preload = path.join(root, "conf", "hsts-preload.json");
if (!fs.existsSync(preload)) {
  // The package downloads Chromium's preload list after install; without it, no host is preloaded.
  fs.writeFileSync(preload, "{}");
}
const load = (p) => import(pathToFileURL(path.join(root, p)).href);
const { ALL_TESTS } = await load("src/constants.js");
const { Requests } = await load("src/types.js");
const { Session } = await load("src/retriever/session.js");
const { parseHttpEquivHeaders } = await load("src/retriever/utils.js");
const { getScoreModifier } = await load("src/grader/grader.js");
const { getGradeForScore } = await load("src/grader/grader.js");
const { MINIMUM_SCORE_FOR_EXTRA_CREDIT } = await load("src/grader/charts.js");
const { AxiosHeaders } = await load("node_modules/axios/index.js");

// Node's IncomingMessage: these keep their first value, set-cookie stays a list, the rest are joined with ", ".
const FIRST_ONLY = new Set(["age", "authorization", "content-length", "content-type", "etag", "expires", "from",
  "host", "if-modified-since", "if-unmodified-since", "last-modified", "location", "max-forwards",
  "proxy-authorization", "referer", "retry-after", "server", "user-agent"]);

function nodeHeaders(pairs) {
  const headers = {};
  for (const [rawName, value] of pairs) {
    const name = rawName.toLowerCase();
    if (name === "set-cookie") {
      (headers[name] ??= []).push(value);
    } else if (name in headers) {
      if (!FIRST_ONLY.has(name)) headers[name] += ", " + value;
    } else {
      headers[name] = value;
    }
  }
  return headers;
}

function requestsFor(item) {
  const host = item.host || "localhost";
  const url = new URL(`${item.scheme}://${host}/`);
  const req = new Requests(host);
  const headers = nodeHeaders(item.headers);
  const response = {
    headers: AxiosHeaders.from(headers), status: 200, statusText: "OK", verified: true, data: item.body ?? "",
    request: { headers: {} }, config: { headers: {} },
  };
  req.responses.auto = response;
  req.responses.cors = { ...response };
  if (item.scheme === "https") {
    req.responses.https = response;
    req.responses.http = { ...response, headers: new AxiosHeaders() };
    req.responses.httpRedirects = [{ url: new URL(`http://${host}/`), status: 301 }, { url, status: 200 }];
  } else {
    req.responses.https = null;
    req.responses.http = response;
    req.responses.httpRedirects = [{ url, status: 200 }];
  }
  req.responses.httpsRedirects = req.responses.httpRedirects;
  req.session = new Session(url);
  for (const cookie of headers["set-cookie"] ?? []) {
    req.session.jar.setCookieSync(cookie, url.href, { ignoreError: true });
  }
  req.resources.path = item.body ?? null;
  const type = (headers["content-type"] ?? "").split(";")[0];
  response.httpEquiv = ["text/html", "application/xhtml+xml"].includes(type) && req.resources.path
    ? parseHttpEquivHeaders(req.resources.path, url.href) : new Map();
  return req;
}

const cases = JSON.parse(fs.readFileSync(0, "utf8"));
const out = cases.map((item) => {
  const req = requestsFor(item);
  const tests = {};
  let withCredit = 100;
  let uncurved = 100;
  for (const test of ALL_TESTS) {
    let output;
    try {
      output = test(req);
    } catch (error) {
      return { error: String(error) };
    }
    const modifier = getScoreModifier(output.result);
    tests[output.constructor.name] = { result: output.result, modifier, pass: output.pass };
    withCredit += modifier;
    if (modifier < 0) uncurved += modifier;
  }
  const final = getGradeForScore(uncurved >= MINIMUM_SCORE_FOR_EXTRA_CREDIT ? withCredit : uncurved);
  return { tests, score: final.score, grade: final.grade };
});
process.stdout.write(JSON.stringify(out));
