#!/usr/bin/python3
"""Seeded generator of a benign corpus: realistic browser and API traffic that a WAF must let through.

    gen_benign.py [--seed 20261201] [--count 10000] [--out FILE]   (default: stdout)

Standard library only. The same seed and count give the same bytes, so a run can be reproduced
from the command line alone. One JSON object per line:
  {"id": "b00042", "kind": "search", "method": "GET", "uri": "/search?q=...",
   "headers": [["Host", "www.shop.test"], ...], "body": null}
Kinds (rough shares): page views with tracking parameters, site search with real-looking terms
(apostrophes, quotes, ampersands, code-like words people search for, non-ASCII), account and
checkout forms (names with quotes and apostrophes, e-mail addresses, addresses, phone numbers),
JSON API calls (bodies with free text, non-ASCII, nested objects), asset requests, and every
browser request carries realistic headers: several User-Agents, Referers with queries, long
cookies (analytics, consent strings, session tokens, JWT-like values).
"""
import argparse
import base64
import json
import random
import sys
import urllib.parse

HOSTS = ["www.shop.test", "news.example.test", "app.example.test", "localhost"]

UAS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36",
    "Mozilla/5.0 (Linux; Android 13; SM-A546E) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
]
ACCEPT_HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
LANGS = ["en-US,en;q=0.9", "id-ID,id;q=0.9,en-US;q=0.8,en;q=0.7", "de-DE,de;q=0.9,en;q=0.8",
         "ja,en-US;q=0.9,en;q=0.8", "fr-FR,fr;q=0.9", "es-419,es;q=0.9,en;q=0.8", "pt-BR,pt;q=0.9"]

FIRST = ["Anna", "Budi", "Siti", "Seán", "Zoë", "Chloé", "José", "Mohammed", "Nguyễn", "Björn", "Łukasz",
         "Jean-Luc", "Mary Ann", "D'Arcy", "Renée", "Ayşe", "Søren", "Dewi", "Ravi", "Yūki", "Olúwáseun",
         "Ngozi", "Miguel Ángel", "Ève", "Kwame", "李", "Иван", "Αλέξανδρος", "Fatimah", "Wayan"]
LAST = ["O'Brien", "O'Neil", "D'Souza", "D'Angelo", "McDonald", "van der Berg", "Müller", "García Márquez",
        "Smith-Jones", "L'Estrange", "Nakamura", "Santoso", "Wijaya", "Ó Súilleabháin", "Dell'Acqua",
        "N'Diaye", "Kowalski", "Øster", "da Silva", "St. John", "Al-Farsi", "Okonkwo", "Ferreira", "Åberg",
        "王", "Петров", "Nguyen", "Lefèvre", "Hernández", "D'Alessandro"]
DOMAINS = ["gmail.com", "yahoo.co.id", "outlook.com", "example.org", "mail.example.test", "web.de",
           "proton.me", "company.co.uk", "uni-example.ac.id"]
STREETS = ["Jl. Sudirman No. 12", "221B Baker Street", "Hauptstraße 5", "Rue de l'Église 3",
           "1600 Amphitheatre Pkwy, Apt #4", "Calle 5 de Mayo #27", "Via dell'Orso 8", "Jl. Gajah Mada 45A",
           "O'Connell St. 10", "Østerbrogade 1, 2. th."]
CITIES = ["Jakarta", "London", "München", "Paris", "São Paulo", "Köln", "Yogyakarta", "Montréal", "Zürich", "Kraków",
          "Bandung", "Denpasar", "Tōkyō", "Coeur d'Alene"]

SEARCH = [
    "running shoes", "o'reilly python book", "levi's 501 jeans", "men's watches", "kids' toys under $20",
    "tom & jerry dvd", "rock 'n' roll vinyl", "5' 11\" desk lamp", "24\" monitor", "\"exact phrase\" search",
    "c++ for beginners", "c# tutorial", "node.js vs deno", "how to select a laptop", "drop shipping business",
    "union station parking", "update iphone", "delete facebook account", "insert sim card samsung",
    "table and chairs set", "sleep mode windows 11", "where to buy cheap flights", "order status",
    "script writing course", "java coffee beans", "html and css cheat sheet", "1/2 inch drill bit",
    "50% off sale", "buy 1 get 1 free", "price < 100", "size > 42", "what is 2+2", "café latte",
    "crème brûlée recipe", "nasi goreng kampung", "baju lebaran anak", "sepatu olahraga pria", "kaos polos",
    "hp murah 2 jutaan", "東京 ホテル", "笔记本电脑", "ноутбук", "résumé template", "naïve bayes",
    "jalapeño sauce", "señor frogs", "über eats", "straße", "emoji 😀 keyboard", "schrödinger's cat",
    "rick & morty season 7", "at&t prepaid", "h&m hoodie", "q&a", "l'oréal shampoo", "dolce & gabbana",
    "mother's day gift", "don't starve", "i'm feeling lucky", "we're hiring", "shoes size 10 1/2",
    "\"the godfather\" 1972", "wi-fi extender", "e-mail backup", "pdf to word", "a/b testing",
    "100% cotton", "#hashtag ideas", "$5 footlong", "ben & jerry's", "best laptop for programming",
    "or 1 car insurance quote", "and or not logic", "if else python", "select all text shortcut",
    "where is my order", "exec summary template", "cmd prompt commands", "etc/hosts file mac",
    "bin collection day", "admin assistant jobs", "login problems", "javascript: the good parts",
    "alert sound iphone", "onload event", "vs code extensions", "x = y + 1", "function of liver",
]
PRODUCTS = ["t-shirt", "hoodie", "sneakers", "backpack", "headphones", "laptop-stand", "mug", "notebook"]
COLORS = ["black", "white", "navy", "red", "olive"]
COMMENTS = [
    "Great product, would buy again!", "Didn't fit – had to return it :(", "5/5 — \"exactly as described\"",
    "It's OK, but the box was damaged.", "Sangat bagus, pengiriman cepat 👍", "Tolles Produkt, schnelle Lieferung.",
    "Très bien, merci !", "Please deliver after 5 p.m. & ring twice", "Gift for my mom's birthday <3",
    "Leave at the door; don't knock", "Size M (chest 40\") fits well", "Can I pay 50% now & 50% later?",
    "配送が早かったです。", "Спасибо, всё отлично", "My name's O'Brien, not O'Brian :)", "Order #12345 - where is it?",
    "I'd like to select a different colour", "Please update my address; I moved.", "Drop it at reception, thanks",
]
REFERRERS = ["https://www.google.com/", "https://www.bing.com/search?q=%s", "https://duckduckgo.com/",
             "https://t.co/%s", "https://l.facebook.com/l.php?u=https%%3A%%2F%%2Fwww.shop.test%%2F&h=%s",
             "https://www.instagram.com/", "android-app://com.google.android.gm/", "https://%s/"]


def rnd_token(r, n, alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"):
    return "".join(r.choice(alphabet) for _ in range(n))


def b64url(r, n):
    return base64.urlsafe_b64encode(bytes(r.getrandbits(8) for _ in range(n))).decode().rstrip("=")


def jwt(r):
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(json.dumps({"sub": str(r.randrange(10**6)), "name": r.choice(FIRST),
                                                "iat": 1764547200 + r.randrange(86400)}).encode()).decode().rstrip("=")
    return "%s.%s.%s" % (head, body, b64url(r, 32))


def q(s):
    return urllib.parse.quote(s, safe="")


def qp(s):
    return urllib.parse.quote_plus(s)


def cookies(r):
    c = ["_ga=GA1.1.%d.%d" % (r.randrange(10**9, 10**10), 1700000000 + r.randrange(10**7)),
         "_gid=GA1.2.%d.%d" % (r.randrange(10**9, 10**10), 1764500000 + r.randrange(10**5))]
    if r.random() < 0.7:
        c.append("_ga_%s=GS1.1.%d.3.1.%d.0.0.0" % (rnd_token(r, 10, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
                                                    1764500000 + r.randrange(10**5), 1764500000 + r.randrange(10**5)))
    if r.random() < 0.6:
        c.append("_fbp=fb.1.%d.%d" % (1764500000000 + r.randrange(10**8), r.randrange(10**9)))
    if r.random() < 0.5:
        c.append("OptanonConsent=" + q("isGpcEnabled=0&datestamp=Tue Dec 01 2026 08:%02d:00 GMT+0700 (Western Indonesia Time)"
                                       "&version=202310.1.0&browserGpcFlag=0&isIABGlobal=false&hosts=&consentId=%s"
                                       "&interactionCount=1&landingPath=NotLandingPage&groups=C0001:1,C0002:1,C0003:0,C0004:0"
                                       % (r.randrange(60), "%s-%s-%s" % (rnd_token(r, 8), rnd_token(r, 4), rnd_token(r, 12)))))
    if r.random() < 0.15:  # JSON-valued cookies (consent managers, carts): common, and CRS PL2's 942260 dislikes them
        c.append("cookie_consent={%22necessary%22:true%2C%22analytics%22:" + r.choice(["true", "false"]) + "}")
    if r.random() < 0.8:
        c.append("session=" + r.choice([rnd_token(r, 32, "0123456789abcdef"), jwt(r), b64url(r, 48)]))
    if r.random() < 0.15:
        c.append("cart=" + q(json.dumps({"items": r.randrange(1, 6), "currency": r.choice(["IDR", "EUR", "USD"])})))
    if r.random() < 0.3:
        c.append("recently_viewed=" + q(",".join(r.choice(PRODUCTS) + "-" + str(r.randrange(1000)) for _ in range(r.randrange(2, 8)))))
    if r.random() < 0.2:
        c.append("lang=" + r.choice(["en", "id", "de", "ja"]) + "; theme=" + r.choice(["dark", "light"]))
    if r.random() < 0.2:
        c.append("last_search=" + q(r.choice(SEARCH)))
    r.shuffle(c)
    return "; ".join(c)


def tracking(r):
    p = []
    if r.random() < 0.5:
        p += [("utm_source", r.choice(["google", "newsletter", "facebook", "instagram", "tiktok", "partner_site"])),
              ("utm_medium", r.choice(["cpc", "email", "social", "referral", "display"])),
              ("utm_campaign", r.choice(["black_friday_2026", "harbolnas-12.12", "summer sale", "q4/retargeting", "brand+generic"]))]
        if r.random() < 0.5:
            p.append(("utm_content", r.choice(["hero banner", "cta_button_v2", "footer-link", "img|alt"])))
        if r.random() < 0.3:
            p.append(("utm_term", r.choice(SEARCH)))
    if r.random() < 0.25:
        p.append(("gclid", b64url(r, 60)))
    if r.random() < 0.2:
        p.append(("fbclid", "IwAR" + b64url(r, 45)))
    if r.random() < 0.1:
        p.append(("mc_eid", rnd_token(r, 10, "0123456789abcdef")))
    if r.random() < 0.1:
        p.append(("_hsenc", "p2ANqtz-" + b64url(r, 70)))
    return p


def browser_headers(r, host, referer=None, accept=ACCEPT_HTML):
    ua = r.choice(UAS)
    h = [("Host", host), ("User-Agent", ua), ("Accept", accept), ("Accept-Language", r.choice(LANGS)),
         ("Accept-Encoding", "gzip, deflate, br, zstd")]
    if "Chrome" in ua:
        h += [("sec-ch-ua", '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"'),
              ("sec-ch-ua-mobile", "?1" if "Mobile" in ua else "?0"), ("sec-ch-ua-platform", '"Windows"')]
    if referer is None:
        ref = r.choice(REFERRERS)
        if "%s" in ref:
            ref = ref % (qp(r.choice(SEARCH)) if "bing" in ref else host if ref.startswith("https://%s") else rnd_token(r, 10))
        referer = ref
    if referer:
        h.append(("Referer", referer))
    h.append(("Cookie", cookies(r)))
    h += [("Sec-Fetch-Site", r.choice(["same-origin", "cross-site", "none"])), ("Sec-Fetch-Mode", "navigate"),
          ("Sec-Fetch-Dest", "document"), ("Upgrade-Insecure-Requests", "1")]
    return h


def query(params):
    return "&".join("%s=%s" % (qp(k), qp(v)) for k, v in params)


def person(r):
    first, last = r.choice(FIRST), r.choice(LAST)
    local = (first + "." + last).lower()
    local = "".join(ch for ch in local if ch.isascii() and (ch.isalnum() or ch in "._-'")) or "user"
    if r.random() < 0.2:
        local += "+" + r.choice(["shop", "news", "2026", "promo"])
    email = "%s@%s" % (local.replace("'", r.choice(["'", ""])), r.choice(DOMAINS))
    return first, last, email


def page_view(r, host):
    path = r.choice(["/", "/products/%s-%s" % (r.choice(PRODUCTS), r.choice(COLORS)), "/category/%s" % r.choice(["men", "women", "kids", "sale"]),
                     "/blog/2026/11/%s" % r.choice(["black-friday-deals", "how-we-ship", "o-reilly-interview", "tips-and-tricks"]),
                     "/news/%d/%s" % (r.randrange(10**5), r.choice(["pemilu-2026", "cuaca-jakarta", "harga-bbm-turun"])),
                     "/p/%s" % q(r.choice(["café-latte", "crème-brûlée", "東京", "über-uns", "señor"]))])
    params = tracking(r)
    if r.random() < 0.3:
        params.append(("page", str(r.randrange(1, 40))))
    if r.random() < 0.2:
        params.append(("sort", r.choice(["price_asc", "price-desc", "newest", "rating desc"])))
    uri = path + ("?" + query(params) if params else "")
    return "GET", uri, browser_headers(r, host), None


def search(r, host):
    term = r.choice(SEARCH)
    if r.random() < 0.2:
        term = term + " " + r.choice(SEARCH)
    params = [("q", term)]
    if r.random() < 0.4:
        params.append(("category", r.choice(["all", "books", "electronics", "home & garden", "men's"])))
    params += tracking(r) if r.random() < 0.3 else []
    uri = "/search?" + query(params)
    if r.random() < 0.2:  # some sites and browsers encode spaces as %20, not +
        uri = "/search?q=" + q(term)
    return "GET", uri, browser_headers(r, host, referer="https://%s/" % host), None


def form_post(r, host):
    first, last, email = person(r)
    kind = r.random()
    if kind < 0.4:
        fields = [("first_name", first), ("last_name", last), ("email", email),
                  ("phone", r.choice(["+62 812-3456-7890", "(555) 123-4567", "+49 30 1234567", "0812 3456 789"])),
                  ("address", r.choice(STREETS)), ("city", r.choice(CITIES)), ("zip", str(r.randrange(10000, 99999))),
                  ("note", r.choice(COMMENTS)), ("csrf_token", b64url(r, 32))]
        path = "/checkout/address"
    elif kind < 0.7:
        fields = [("name", first + " " + last), ("email", email), ("subject", r.choice(["Order question", "Return & refund", "Kerja sama", "Feedback: \"great\" service"])),
                  ("message", " ".join(r.choice(COMMENTS) for _ in range(r.randrange(1, 4))))]
        path = "/contact"
    else:
        fields = [("email", email), ("password", rnd_token(r, r.randrange(10, 20), "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!@#$%^&*()-_=+[]{};:,.?")),
                  ("remember_me", "on"), ("return_to", "/account/orders?status=open&page=1")]
        path = "/login"
    body = query(fields)
    h = browser_headers(r, host, referer="https://%s%s" % (host, path))
    h += [("Origin", "https://%s" % host), ("Content-Type", "application/x-www-form-urlencoded")]
    return "POST", path, h, body


def api_json(r, host):
    first, last, email = person(r)
    choice = r.random()
    if choice < 0.35:
        body = {"items": [{"sku": "%s-%s-%d" % (r.choice(PRODUCTS), r.choice(COLORS), r.randrange(100)), "qty": r.randrange(1, 4),
                           "options": {"size": r.choice(["S", "M", "L", "XL", "10 1/2"]), "gift_wrap": r.random() < 0.2}}
                          for _ in range(r.randrange(1, 4))],
                "coupon": r.choice([None, "HARBOLNAS12", "BF-2026", "WELCOME10"]), "note": r.choice(COMMENTS)}
        path, method = "/api/v1/cart", "POST"
    elif choice < 0.6:
        body = {"customer": {"firstName": first, "lastName": last, "email": email},
                "shipping": {"street": r.choice(STREETS), "city": r.choice(CITIES), "country": r.choice(["ID", "DE", "FR", "GB", "JP"])},
                "comment": r.choice(COMMENTS), "newsletter": r.random() < 0.5}
        path, method = "/api/v1/orders", "POST"
    elif choice < 0.8:
        body = {"query": r.choice(SEARCH), "filters": {"price": {"min": 0, "max": r.randrange(50, 500)}, "inStock": True},
                "page": r.randrange(1, 10), "sort": [{"field": "relevance", "order": "desc"}]}
        path, method = "/api/v1/search", "POST"
    else:
        body = {"rating": r.randrange(1, 6), "title": r.choice(COMMENTS)[:30], "text": " ".join(r.choice(COMMENTS) for _ in range(3)),
                "author": "%s %s" % (first, last)}
        path, method = "/api/v1/products/%d/reviews" % r.randrange(10000), r.choice(["POST", "PUT"])
    text = json.dumps(body, ensure_ascii=r.random() < 0.3)
    h = [("Host", host), ("User-Agent", r.choice(UAS)), ("Accept", "application/json, text/plain, */*"),
         ("Accept-Language", r.choice(LANGS)), ("Content-Type", "application/json"),
         ("Origin", "https://%s" % host), ("Referer", "https://%s/checkout" % host),
         ("Authorization", "Bearer " + jwt(r)), ("X-Requested-With", "XMLHttpRequest"), ("Cookie", cookies(r))]
    return method, path, h, text


def api_get(r, host):
    params = [("ids", ",".join(str(r.randrange(10000)) for _ in range(r.randrange(1, 8)))),
              ("fields", r.choice(["name,price,images", "id,title,author.name", "*"])),
              ("locale", r.choice(["en_US", "id_ID", "de_DE", "ja_JP"]))]
    if r.random() < 0.3:
        params.append(("filter", r.choice(["price>=100", "brand:levi's", "title~\"summer\"", "tags=a|b|c", "date<2026-12-31"])))
    if r.random() < 0.3:
        params.append(("callback_url", "https://%s/account?tab=orders&ref=mail" % host))
    h = [("Host", host), ("User-Agent", r.choice(UAS)), ("Accept", "application/json"), ("Accept-Language", r.choice(LANGS)),
         ("Referer", "https://%s/products?page=%d" % (host, r.randrange(1, 9))), ("Cookie", cookies(r))]
    return "GET", "/api/v1/products?" + query(params), h, None


def asset(r, host):
    path = r.choice(["/static/js/app.%s.js" % rnd_token(r, 8, "0123456789abcdef"), "/static/css/main.%s.css" % rnd_token(r, 8, "0123456789abcdef"),
                     "/images/products/%s-%s_%dx%d.webp" % (r.choice(PRODUCTS), r.choice(COLORS), 400, 400),
                     "/fonts/Inter-Regular.woff2", "/favicon.ico", "/manifest.webmanifest"])
    if r.random() < 0.4:
        path += "?v=%d" % r.randrange(10**6)
    accept = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8" if "/images/" in path else "*/*"
    return "GET", path, browser_headers(r, host, referer="https://%s/" % host, accept=accept), None


KINDS = [("page", page_view, 0.30), ("search", search, 0.20), ("form", form_post, 0.12), ("json", api_json, 0.13),
         ("api_get", api_get, 0.10), ("asset", asset, 0.15)]


def generate(seed, count):
    r = random.Random(seed)
    names = [k for k, _, _ in KINDS]
    weights = [w for _, _, w in KINDS]
    funcs = {k: f for k, f, _ in KINDS}
    for i in range(count):
        kind = r.choices(names, weights)[0]
        host = r.choice(HOSTS)
        method, uri, headers, body = funcs[kind](r, host)
        yield {"id": "b%05d" % i, "kind": kind, "method": method, "uri": uri,
               "headers": [[k, v] for k, v in headers], "body": body}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    out = sys.stdout if a.out == "-" else open(a.out, "w", encoding="utf-8")
    for row in generate(a.seed, a.count):
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
