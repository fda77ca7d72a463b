// Lighthouse on one page of /play/ at a phone's size, in Debian's Chromium, signed in:
//   node run.mjs <url> <token> <username> [<chromium>]
// prints one line of JSON: {url, accessibility, performance, "best-practices", failing}.
// The page's session (a token in localStorage, as the page keeps it) is put in place
// first, and Lighthouse keeps the storage (disableStorageReset), so that the table is
// measured as a signed-in player sees it.
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import puppeteer from "puppeteer-core";

const [url, token, username, chromePath = "/usr/bin/chromium"] = process.argv.slice(2);
const chrome = await chromeLauncher.launch({
  chromePath,
  chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"],
});
try {
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
  const page = await browser.newPage();
  const origin = new URL(url).origin;
  await page.goto(`${origin}/play/#/`);
  await page.evaluate(([t, u]) => {
    if (t) {
      localStorage.setItem("euchre.token", t);
      localStorage.setItem("euchre.username", u);
    } else {
      localStorage.clear();
    }
  }, [token === "-" ? "" : token, username]);
  await page.close();
  const config = {
    extends: "lighthouse:default",
    settings: {
      onlyCategories: ["accessibility", "performance", "best-practices"],
      formFactor: "mobile",
      screenEmulation: { mobile: true, width: 390, height: 844, deviceScaleFactor: 3, disabled: false },
      disableStorageReset: true,
    },
  };
  const result = await lighthouse(url, { port: chrome.port, logLevel: "error", output: "json" }, config);
  const lhr = result.lhr;
  const scores = Object.fromEntries(Object.entries(lhr.categories).map(([id, c]) => [id, Math.round(c.score * 100)]));
  const failing = Object.values(lhr.audits)
    .filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== "informative" && a.scoreDisplayMode !== "notApplicable" && a.scoreDisplayMode !== "manual")
    .map((a) => `${a.id}: ${a.displayValue || a.score}`);
  const metrics = Object.fromEntries(["first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift", "speed-index"]
    .map((id) => [id, lhr.audits[id] ? lhr.audits[id].displayValue : null]));
  console.log(JSON.stringify({ url, ...scores, metrics, failing }));
  await browser.disconnect();
} finally {
  await chrome.kill();
}
