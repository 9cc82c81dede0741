"""Secret detection: what must never be stored as a memory.

Every write path (extraction, ``llm memories add``, ``import``, ``edit``)
checks text through ``write.check_memory``, which refuses a memory when
``secret_reason`` names one: a memory is shown to a model on every later
turn, so a secret stored once would leak forever.

Refused:

* a password in a sentence about logging in ("logs into the NAS with
  admin / Kx9!mPq2vL"), in several languages, or after what it opens and a
  user name ("WordPress for the club site: editor / vgywxd85");
* passwords, passphrases, PINs and codes stated in prose, in some 30
  languages ("mi contraseña es ...", "我的密码是...", "I use qwerty123 as the
  password for everything"), codes named by what they open ("Tresorcode",
  "pincode", "dørkode"), seed phrases and 2FA recovery codes (also as a
  list, "sqng vikg cxbq, qlng ctek nqbi, ..."); a password given in the
  sentence after the one that names it ("...my password? It's X"); a password a
  generator made (random letters, the case switching) wherever it stands, or
  of such letters alone right after a password word, letters no name is made
  of ("... est eQTaoxiUbz"); "pw" right before a password, a new one given
  "after the reset"; a drawn password beside a network, a portal or what
  "opens with" it, or typed to unlock ("you type moonLake_2207"); codes of what opens a
  door or box (a key safe, a keypad, German compounds, Japanese and Chinese),
  an alarm's ("Alarme du garage : 7719"), and a code one keys in ("il codice
  da digitare è ...");
* a wallet recovery phrase however it is introduced: 12 to 24 words of one
  BIP-39 list in a row whose checksum holds (the mnemonic package's lists),
  or twelve of the English list (one word off it at most) in a text that
  names a wallet;
  a passphrase of that English list's words, joined ("click_hill_whale") or
  spaced, after a password word or, joined, in a sentence about logging in;
* connection strings of any scheme that carry a password, ``user/password@host:port``
  logins, a password on a client's command line (``-u user -p…``, ``sshpass -p``)
  or among the arguments right after a link or user@host on one;
* API tokens of the common providers (by their documented prefixes and
  shapes, after detect-secrets' plugins), private keys (also as a byte
  array after a key word), JWTs, and long random-looking tokens; an
  authenticator's seed, also of letters alone in groups of four; a long
  mixed value after a key's compound name ("client secret", "applicationKey",
  "psk"), a session cookie's id;
* IBANs (mod-97 checked, also before upper-case words), domestic bank
  accounts (routing, its checksum or a bank named; sort code and "a/c no", BSB,
  or 8 to 20 digits after an account number's name or its kind, "the
  checking account is ..."), passport numbers, payment cards (issuer
  prefix, length and Luhn), and national id numbers: a shape of its own anywhere, a plain run of
  digits in a text about identity, each checked by python-stdnum; any
  number right after an id's name; or, after a short name that is also a
  word or initials elsewhere ("NIP", "NIT", "RUC", "IRD"), a number that
  id's own check accepts.

Not secrets: public keys, hashes and git SHAs (hex alone never counts),
UUIDs, docker digests, document ids inside links, IMEIs, order, tracking and
phone numbers, Bitcoin addresses (their checksum holds), Stripe's publishable
keys, the published sample IBANs and test cards where a text presents them
as examples, and the word
"password" without one ("the user's password was compromised in a breach"); nor values that are no value, after
detect-secrets' heuristic filters and gitleaks' allowlists: placeholders and
placeholder words ("fake", "dummy", "sample"), a value read by a call or a
lookup, a value that names the secret word or its variable
(``password=password``), providers' sample keys ending in EXAMPLE.

All patterns use bounded repetition: linear time in the text.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import unicodedata

from .safety import fold_for_matching, strip_hiding_characters

# --- Provider tokens and key material (matched on the text as written) -------

_TOKENS = [
    r"\bsk-(?:ant-|proj-|live-|test-|or-v1-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,200}",
    # Stripe's secret and restricted keys; its publishable keys (pk_) are public by design
    r"\b(?:rk|sk|whsec)_(?:live|test|prod)_[A-Za-z0-9]{16,200}",
    r"\bgh[pousr]_[A-Za-z0-9]{30,200}",
    r"\bgithub_pat_[A-Za-z0-9_]{30,200}",
    r"\bgl(?:pat|dt|ptt|rt|cbt|soat|ft|imt|agent|oas|wt|ffct)-[A-Za-z0-9_\-]{20,200}|\bGR1348941[\w-]{20,200}",
    r"\bxox[abposre]-[A-Za-z0-9\-]{10,200}",
    r"\bhooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]{20,200}",
    r"\bdiscord(?:app)?\.com/api/webhooks/\d{5,30}/[\w-]{30,200}",
    r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b",
    r"(?i:aws[ _]?secret[ _]?access[ _]?key)\W{0,5}[A-Za-z0-9/+=]{40}",
    r"\bAIza[0-9A-Za-z_\-]{35}\b",
    r"\bya29\.[\w-]{20,300}",
    r"\bGOCSPX-[\w-]{20,60}",
    r"\bhf_[A-Za-z0-9]{30,200}",
    r"\bnpm_[A-Za-z0-9]{36}\b",
    r"\bpypi-AgE[\w-]{50,300}",
    r"\b(?:SK|AC)[0-9a-fA-F]{32}\b",  # Twilio
    r"(?<![\d-])\d{6}(?:-\d{6}){7}(?![\d-])",  # BitLocker recovery key: eight groups of six digits
    r"\bkey-[0-9a-zA-Z]{32}\b",  # Mailgun
    r"\b[MNO][A-Za-z\d_-]{23,27}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,40}\b",  # Discord bot
    r"\bhv[sbr]\.[A-Za-z0-9_-]{20,300}",  # Vault
    r"\bs\.[A-Za-z0-9]{24}\b",  # Vault (legacy)
    r"\bdapi[0-9a-f]{32}(?:-\d)?\b",  # Databricks
    r"\bSG\.[\w-]{16,32}\.[\w-]{16,64}",  # SendGrid
    r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:fx\b",  # DeepL (free)
    r"\bK00\d[A-Za-z0-9+/]{27}\b",  # Backblaze B2 application key
    # a Wi-Fi network as its QR code spells it: "WIFI:T:WPA;S:name;P:password;;"
    r"\bWIFI:(?:[TSHE]:[^;\n]{0,64};){0,4}P:[^;\n]{4,64};",
    r"(?<![\w/])[12]/\d{10,20}(?:/\d{10,20})?:[0-9a-f]{32}\b",  # Asana personal access token
    r"\bsq0(?:atp|csp|idp)-[\w-]{20,100}|\bEAAA[\w-]{60,100}",  # Square
    r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",  # Shopify
    r"\b\d{8,10}:AA[\w-]{33}\b",  # Telegram bot
    r"\b[0-9a-f]{32}-us\d{1,2}\b",  # Mailchimp
    r"\bdo[opr]_v1_[a-f0-9]{64}",  # DigitalOcean
    r"\bAKC[a-zA-Z0-9]{10,100}",  # Artifactory
    r"(?i:accountkey)=[A-Za-z0-9+/=]{40,200}",  # Azure storage
    r"[?&](?:sig|signature|token|access_token|api_key|apikey|key|secret|password|auth)=[A-Za-z0-9%._~+/=-]{16,300}",
    r"\blin_api_[A-Za-z0-9]{40}|\bsecret_[A-Za-z0-9]{43}\b|\bntn_[A-Za-z0-9]{40,60}",
    r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}",
    r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|\bglc_[A-Za-z0-9+/]{32,200}",
    r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}",
    r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[a-zA-Z0-9]{40,60}",
    r"\bgsk_[A-Za-z0-9]{40,60}|\br8_[A-Za-z0-9]{37}\b|\bpplx-[A-Za-z0-9]{40,60}|\bxai-[A-Za-z0-9]{60,100}",
    r"\bATATT3[A-Za-z0-9_\-=]{100,300}",
    r"\bEAA[A-Za-z0-9]{100,300}",
    r"\bAAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,200}",
    r"\bnsec1[a-z0-9]{50,70}",
    r"\b[5KL][1-9A-HJ-NP-Za-km-z]{50,51}\b",  # Bitcoin private key (WIF)
    r"\beyJ[A-Za-z0-9_\-]{10,2000}\.eyJ[A-Za-z0-9_\-]{10,2000}\.[A-Za-z0-9_\-]{10,2000}",  # JWT
    r"-----BEGIN [A-Z ]{0,30}PRIVATE KEY|PuTTY-User-Key-File",
    r"\b[\w~.-]{3}\dQ~[\w~.-]{31,34}",  # Azure AD client secret
    r"\bfo1_[\w-]{43}|\bfm[12][ar]?_[A-Za-z0-9+/]{100,300}",  # Fly.io
    r"\bsntry[su]_[A-Za-z0-9+/=_]{40,300}",  # Sentry
    r"\bHRKU-[\w-]{40,80}",  # Heroku
    r"\bsgp_(?:local_)?[A-Za-z0-9_]{30,80}",  # Sourcegraph
    r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}",  # Cloudflare origin CA
    r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,100}",  # Terraform Cloud
    r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b|\bops_eyJ[A-Za-z0-9+/]{100,}",  # 1Password
    r"\bico-[A-Za-z0-9]{32}\b",  # Infracost
    r"\btk-us-[\w-]{48}",  # Scalingo
    r"\bsha256~[\w-]{43}",  # OpenShift
    r"\bAPI-[A-Z0-9]{26}\b",  # Octopus Deploy
    r"\bpnu_[A-Za-z0-9]{36}\b|\brdme_[a-z0-9]{70}\b|\bdckr_pat_[\w-]{27}|\bnpm_[A-Za-z0-9]{36}",  # Prefect, ReadMe, Docker, npm
    r"\bbedrock-api-key-[A-Za-z0-9+/=]{20,200}|\bABSK[A-Za-z0-9+/]{100,200}={0,2}",  # AWS Bedrock
    r"\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+|\bxoxe\.xox[bp]-\d-[A-Za-z0-9]{100,}|\bxoxe-\d-[A-Za-z0-9]{100,}",  # Slack app/config
    r"\bglc_eyJ[A-Za-z0-9+/=]{30,300}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",  # Grafana
    r"\bLTAI[A-Za-z0-9]{20}\b",  # Alibaba
    r"\bp8e-[A-Za-z0-9]{32}\b",  # Adobe
    # More documented prefixes (gitleaks' rules and the providers' own docs):
    r"\blsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}\b",  # LangSmith
    r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b|\bduffel_(?:test|live)_[\w=-]{43}|\bEZ[AT]K[A-Za-z0-9]{54}\b",  # Shippo, Duffel, EasyPost
    r"\bnapi_[a-z0-9]{64}\b|\bpscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}|\bsbp_[a-f0-9]{40}\b|\bsb_secret_[\w-]{20,80}",  # Neon, PlanetScale, Supabase
    r"\b1//0[\w-]{40,300}|\bsk\.eyJ[\w-]{40,300}\.[\w-]{20,100}|\bsl\.(?:u\.)?[\w-]{120,1400}",  # Google refresh, Mapbox secret, Dropbox
    r"\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\baccess_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}",  # Plaid, PayPal
    r"\brzp_(?:live|test)_[A-Za-z0-9]{14}\b|\bSCW[A-Z0-9]{17}\b|\bsecret-(?:live|test)-[\w=-]{30,80}|\bsq[pau]_[a-f0-9]{40}\b",  # Razorpay, Scaleway, Stytch, SonarQube
    r"\bCCIPAT_[\w]{20,80}|\bbkua_[a-f0-9]{40}\b|\bCFPAT-[\w-]{43}|\bdbtc_[\w-]{30,80}|\btfp_[\w.=-]{59}",  # CircleCI, Buildkite, Contentful, dbt, Typeform
    r"\bpat-(?:na|eu)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\bpk_\d{6,10}_[A-Z0-9]{32}\b",  # HubSpot, ClickUp
    r"\btgp_v1_[\w-]{30,80}|\bcsk-[a-z0-9]{40,60}\b|\bjina_[A-Za-z0-9_-]{40,80}",  # Together, Cerebras, Jina
    r"\b(?:fw_|tvly-(?:dev-)?)(?=[A-Za-z]{0,39}\d)(?=\d{0,39}[A-Za-z])[A-Za-z0-9]{20,40}\b|\bpcsk_[A-Za-z0-9_]{40,100}|\bsk_[a-f0-9]{48}\b",  # Fireworks, Pinecone, Tavily, ElevenLabs
    r"\bNRAK-[A-Z0-9]{27}\b|\bNRII-[A-Za-z0-9-]{32}|\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",  # New Relic, Dynatrace
    r"\brubygems_[a-f0-9]{48}\b|\bCLOJARS_[a-zA-Z0-9]{60}|\boy2[a-z0-9]{43}\b|\bpul-[a-f0-9]{40}\b",  # RubyGems, Clojars, NuGet, Pulumi
    r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b|\b(?:pat|sat)\.[\w-]{22}\.[a-zA-Z0-9]{24}\.[a-zA-Z0-9]{20}",  # Airtable, Harness
    r"\bfio-u-[\w=-]{64}|\bFLWSECK(?:_TEST)?-[a-hA-H0-9]{32}-X|\bapi_org_[A-Za-z]{34}\b|\bs-s4t2(?:ud|af)-[a-f0-9]{64}",  # Frame.io, Flutterwave, HF org, 42
    r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b|\bsm_(?:aat|pat|sat)_[a-zA-Z0-9]{16}\b|\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}",  # MaxMind, SettleMint, Brevo
    r"\btskey-(?:api|auth|client)-[\w-]{20,80}|\b(?:nfp|rnd)_(?=[A-Za-z]{0,39}\d)(?=\d{0,39}[A-Za-z])[A-Za-z0-9]{28,40}\b|\bre_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}\b",  # Tailscale, Netlify, Render, Resend
    r"\bATBB[A-Za-z0-9]{32}|\bATTA[a-f0-9]{64}|\bfigd_[\w-]{40,}|\blin_oauth_[a-f0-9]{64}|\bAQVN[\w-]{35,38}\b|\be2b_[a-f0-9]{40}\b",  # Bitbucket, Trello, Figma, Linear, Yandex, E2B
    r"(?i:\bbearer\s{1,5}[A-Za-z0-9_\-\.=~]{20,300})",
    # a key as a byte array (Solana's keypair file, "[158, 168, 151, ...]"): 32 bytes or more after a key word
    r"(?i:key ?pair|private[ _]?key|secret[ _]?key|secret|seed|id\.json)[^\n\[]{0,30}\[\s?(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\s?,\s?){31}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b",
    r"(?i:\b(?:basic)\s{1,5}[A-Za-z0-9+/]{16,300}={0,2})",
]
_TOKEN = re.compile("|".join(f"(?:{p})" for p in _TOKENS))

# scheme://user:password@host, any scheme; placeholders are not passwords.
# (the user may be an e-mail address: "smtps://alerts@home.net:pw@smtp.host:465")
_CONNECTION = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,30}://([^\s/@:]{0,64}(?:@[^\s/@:]{1,100})?):([^\s/@]{1,200})@")
_PLACEHOLDER = re.compile(r"^(?:\*+|x+|X+|\.{3}|…|<[^>]*>|\{[^}]*\}|\$\{?\w+\}?|%\(?\w*\)?s?|\[[^\]]*\])$")

# --- Secrets stated in prose (matched on the folded text) -------------------

_SECRET_WORDS = (
    # (the PIN's compounds before the bare word: "pinkoden" is no "pin" inside a longer word)
    r"pass(?:word|wd|code|phrase|kode)s?|pwd|pw(?=\s(?:for|of|to|on|is|=|:|->)|\s?[:=])|pin-?(?:code|kode|kod|koodi)\w{0,2}|pins?(?: code| number)?|(?<!\w)پن(?!\w)|wi-?fi (?:key|code)|network key|wpa2? key"
    r"|security code|cvv|cvc|digicode|"
    # a card's PIN and an access code as other languages name them
    r"code (?:de |d'|du )?(?:ma |la |mon )?carte(?: bancaire| bleue| de crédit)?|código de acesso|código de acceso|code d'accès|codice di accesso|tunnusluku\w{0,3}|"
    # "security code" as other languages write it
    r"säkerhetskod\w{0,2}|sikkerhe[dt]skode\w{0,2}|turvakoodi\w{0,3}|sicherheitscode\w{0,2}|beveiligingscode\w{0,2}|code de sécurité|código de seguridad|código de segurança|codice di sicurezza|kod bezpieczeństwa|bezpečnostní kód|biztonsági kód\w{0,2}|güvenlik kodu|код безопасности|安全码|安全碼|セキュリティコード|보안 코드|"
    # compounds of what a code opens, as German, Dutch and Nordic write them ("Tresorcode", "fietsslotcode", "dørkode")
    r"(?:t[üu]r|haust[üu]r|tor|tresor|safe|schloss|schließfach|spind|alarm|zahlen|garagen?|deur|voordeur|kluis|fietsslot|slot|poort|toegangs)code\w{0,2}"
    r"|(?:dør|hoveddør|port|alarm|lås|garage|boks)kode\w{0,3}|(?:dörr|port|larm|lås|garage)kod\w{0,2}|(?:ovi|portti|hälytys)koodi\w{0,3}"
    r"|pin-?(?:code|kode|kod|koodi)\w{0,2}|puk(?:-?(?:code|kode|kod|koodi|код)\w{0,2})?(?![a-z])|пук(?:-код\w{0,2})?(?!\w)|unlock code|lock ?code|door code|gate code|alarm code|entry code|access code|(?:lock|safe|padlock|locker|door) combination|combination lock"
    r"|(?:wlan|wifi|wi-fi|wpa2?|wpa3)[- ]?(?:schlüssel|key|clé|clave|chiave|sleutel|nyckel|klucz|code)"
    r"|login(?: details| credentials)?|credentials|api[ _-]?key|secret[ _-]?key|access[ _-]?(?:key|token)|auth[ _-]?token|private key"
    r"|contraseñas?|contrasenas?|clave(?: de acceso| secreta)?|senhas?|palavra-passe|mot de passe|mdp|code secret|code pin"
    r"|passw[oö]rt\w{0,3}|kennw[oö]rt\w{0,3}|zugangscode|geheimzahl|parola d'ordine|wachtwoord\w{0,2}|hasł\w{1,3}|hasl\w{1,3}|парол\w{1,3}|пин-код\w{0,2}|şifre\w{0,6}|sifre\w{0,6}|şifrə\w{0,4}|parola\w{0,3}"
    r"|lösenord\w{0,3}|losenord\w{0,3}|adgangskode\w{0,3}|kodeord\w{0,3}|passord\w{0,3}|salasan\w{1,5}|hesl\w{1,3}|jelsz[óoa]\w{0,4}|parol[ăe]\w{0,3}|κωδικ\w{0,6}|συνθηματικ\w{0,4}"
    r"|كلمة المرور|كلمة السر|كلمة سر|كلمة مرور|الرقم السري|סיסמ\w{1,3}|رمز عبور|گذرواژه|رمز|पासवर्ड|पिन|कूटशब्द|संकेतशब्द|ಪಾಸ್‌ವರ್ಡ್|പാസ്‌വേഡ്|የይለፍ ቃል|сырсөз|پټنوم|okwuntughe|kupuhipa|tenimiafina|密码|密碼|口令|暗証番号|パスワード|비밀번호|암호|패스워드"
    r"|mật khẩu|mat khau|รหัสผ่าน|รหัส|kata sandi|sandi|kata laluan|nenosiri|পাসওয়ার্ড|lozink\w{1,2}|лозинк\w{1,2}|parol(?:im|imiz|ingiz|i|ni)?(?!\w)|passwuert\w{0,2}|pasvort\w{1,3}|modpas|facal-faire|wachtwurd\w{0,2}|loyniorð\w{0,2}|şîfre\w{0,4}|kalmar sirri|nambari ya siri|namba ya siri|nywila|neno (?:la )?siri|(?:master|vault|secret) phrase|pin-код\w{0,2}|пин(?!\w)|пін(?:-код\w{0,2})?(?!\w)|קוד סודי|הקוד הסודי|шифр(?:а|у|е|ом|ой)?(?!\w)(?!\s(?:производ|артик|предмет|делатност|занимањ|грешк|купц|валут|држав))|šifr(?:a|u|e|om)?(?!\w)(?!\s(?:proizvod|artik|rob|predmet|djelatnost|delatnost|zanimanj|greš|gres|kupc|valut|držav|drzav))|পিন(?!\w)|gesl[oaiu]\w{0,2}|slaptažod\w{1,4}|parool\w{0,4}|parole"
    r"|contraseny\w{0,2}|contrasinal|pasahitz\w{0,3}|lykilorð\w{0,3}|wagwoord|fjalëkalim\w{0,3}|(?:c|g|ngh|ch)yfrinair|pasfhocal|pasiwedi|iphasiwedi|gaztnabar|գաղտնաբառ|პაროლ\w{0,2}|құпия сөз|нууц үг|کلمه عبور|پاس ورڈ|கடவுச்சொல்|పాస్‌వర్డ్|પાસવર્ડ|ਪਾਸਵਰਡ|මුරපදය|ពាក្យសម្ងាត់|ລະຫັດຜ່ານ|စကားဝှက်"
)
# "pins" followed by a word other than a link is the verb ("the workflow
# pins actions/checkout@v4", "pins numpy to 1.26"), not PINs; before a link
# or a number ("her pins 4821 and 9930") it is the noun.
_PINS_VERB = r"pins\s(?!(?:are|were)\b|:|\d)"
# What joins a secret word to its value: a copula or a colon. Space-free
# scripts attach it directly ("密码是", "パスワードは", "비밀번호는").
_LINK = (
    r"(?:\s?[:=：]\s?|'s\s|\s(?:is|was|are|were|es|és|era|est|c'est|c’est|ist|lautet|war|è|é|jest|это|—|=>|->|är|este|είναι|هي|هو|היא|है|là|adalah|ialah|sont|sind|será|zijn|olan|şu|হলো|হল|হচ্ছে)\s"
    r"|\s(?:is |was |has been |got )?(?:set|changed|updated|reset) to\s"
    r"|(?:是|为|為|は|が|는|은|이|가|คือ|:|：)\s?)"
)
# Between the word and the link: nothing, or a phrase that starts with a
# preposition or possessive ("for the house", "de mi wifi", "mea", "ของฉัน"),
# never a noun ("password manager is 1Password" names no password).
_FILLER = (
    r"(?:\s(?:for|of|to|on|at|from|in|de|del|da|do|di|du|des|für|vom|von|pour|para|per|для|від|от|od|van|för|til|på|"
    r"mea|meu|minha|mi|mio|mia|mein|meine|mon|ma|my|our|his|her|their|mój|moje|moja|мой|мій|dla|zu|al|yangu|langu|lako|letu|yako|yetu|saya|của|ku|wa|ya|mu|"
    r"voor|bij|az|a|la|le|el|the|that|we|i|"
    # or the thing it opens: "mật khẩu wifi nhà tôi là", "كلمة سر الواي فاي هي"
    r"wifi|wi-fi|wlan|router|e-?mail|gmail|mail|bank|banking|laptop|computer|pc|phone|iphone|account|vpn|server|admin|"
    r"nhà|tôi|của|الواي|واي|вай-фая|вайфая|вай-фай|वाईफाई|와이파이)\b(?:\s[^\s\d\"'`«“「:：=]{1,20}){0,5}?"
    r"|[^\s\x00-\x7f]{1,8})?"
)
_QUOTED = r"[\"'`«“「‘]([^\"'`»”」’\n]{3,80})[\"'`»”」’]"
_VALUE = r"(?!(?:{stop})(?:[\s.,;:!?]|$))([^\s\"'`«»“”「」‘’,;()。，、；！？][^\s\"'`«»“”「」‘’,;。，、；！？]{{2,79}})"
# Words that follow "password is" without being one.
_NOT_A_VALUE = frozenset("""
compromised changed reset weak strong long short stolen leaked expired required stored saved kept managed
written the a an my his her their our your not too very still now in on hard easy secure insecure same
different old new shared hidden encrypted hashed protected missing wrong correct forgotten lost known
unknown set updated generated random complex simple case-sensitive sensitive also always never being
something somewhere stored written taped printed synced needed mandatory optional blank empty disabled
enabled off on required: required. rotated renewed invalid valid locked personal private his her its
that this what which where when who how it one two three four five six seven eight nine ten
easy-to-guess guessable predictable unique reused a-z and or but so for with from by to of at as
manager managers policy policies rules requirement requirements length strength hint hints protected
comprometida cambiada débil fuerte larga corta segura perdida olvidada nueva vieja la el una un mi su
compromis changé faible fort longue courte sécurisé perdu oublié nouveau le la un une mon son
geändert schwach stark lang kurz sicher verloren vergessen neu alt das der die ein eine mein sein
abgelaufen gesperrt zurückgesetzt gültig ungültig falsch richtig unsicher caducado caducada bloqueado bloqueada expirado expirada incorrecta correcta expiré expirée bloqué bloquée incorrect correct scaduta bloccata sbagliata verlopen geblokkeerd истёк истек заблокирован неверный wygasło zablokowane
""".split())
_VALUE = _VALUE.format(stop="|".join(re.escape(w) for w in sorted(_NOT_A_VALUE, key=len, reverse=True)))
_SECRET_WORDS = unicodedata.normalize("NFKC", _SECRET_WORDS)
_LINK = unicodedata.normalize("NFKC", _LINK)
# Link words that are also ordinary words elsewhere ("on Monday", "to me"):
# they only count before a value with a digit in it.
# (French, Spanish and Italian may put an article before the number: "est le 0679")
_WEAK_LINK = r"\s(?:on|e|to|er|je|ni|-|—|(?:est|c'est|es|è|é) (?:le|la|el|il|o))\s"
_WEAK_LINK = unicodedata.normalize("NFKC", _WEAK_LINK)
_PROSE_PATTERNS = [
    # keyword [filler] link value
    re.compile(rf"(?<![a-z])(?:{_SECRET_WORDS}){_FILLER}{_LINK}(?:{_QUOTED}|{_VALUE})", re.DOTALL),
    # keyword immediately followed by a quoted or code-like value: "wifi password 'x'", "PIN 4821"
    re.compile(rf"(?<![a-z])(?!{_PINS_VERB})(?:{_SECRET_WORDS})\s?(?:{_QUOTED}|([^\s]*\d[^\s]*))"),
    # value before keyword: "uses qwerty123 as the password"
    re.compile(rf"\b(?:use[sd]?|using|set|chose|picked|has|had|sets|made)\s([^\s\"'`]{{4,80}})\s(?:as|for)\s(?:(?:my|the|his|her|their|our|a|an|its)\s)?(?:\w{{1,20}}\s){{0,2}}(?:{_SECRET_WORDS})\b"),
    re.compile(rf"([^\s\"'`]{{4,80}})\s(?:is|was)\s(?:(?:my|the|his|her|their|our)\s)(?:\w{{1,20}}\s){{0,2}}(?:{_SECRET_WORDS})\b"),
    # keyword [filler] weak link, value with a digit: "salasanani on kissa123"
    re.compile(rf"(?<![a-z])(?:{_SECRET_WORDS}){_FILLER}{_WEAK_LINK}(?:{_QUOTED}|([^\s]*\d[^\s]*))", re.DOTALL),
]
# A secret word, then within the same clause a value that reads as one
# ("passordet mitt er fjord1905", "הסיסמה שלי היא shalom123",
# "WiFi密码是jiayou888"): whatever the words between them, in any language.
_SECRET_WORD = re.compile(rf"(?:{_SECRET_WORDS})")
_CLAUSE_END = re.compile(r"[.!?;\n。！？](?:\s|$)|।")
_WINDOW_TOKEN = re.compile(r"(?:(?<=[\s:：=是为為は가이은는])|^)([^\s\"'`«»“”「」‘’,;()。，、][^\s\"'`«»“”「」‘’,;。，、]{3,79})")
_NUMERIC_LINK = re.compile(unicodedata.normalize("NFKC", rf"(?:{_LINK}|{_WEAK_LINK}|^\s?)$"))
# Said of the secret word, not of its value: "password manager is 1Password".
# What holds passwords counts only compounded with the word ("password
# app", "passwords file"); further on it is what the password opens
# ("Nenosiri langu la M-Pesa app ni ...": my M-Pesa app's password is).
_NOT_THE_SECRET = re.compile(
    r"^[\s-]?(?:app|vault|file|field|generator)s?\b"
    r"|\b(?:manager|policy|policies|requirements?|length|strength|hint|rules?|reset|breach|leak|expir\w*|changed?|rotat\w*|hash\w*|gestor|gestionnaire|менеджер\w*)\b|管理|マネージャ|관리")

# When the password came to be, not what is said of it: "new password after
# the reset yesterday: ...", "Passwort seit dem Wechsel: ...".
_WHEN_CHANGED = re.compile(
    r"\b(?:after|since|following|nach|seit|après|depuis|después|desde|dopo|sedan|efter|etter|na|po|после)\s"
    r"(?:(?:the|my|its|a|dem|der|la|le|l'|el|il|lo|het|de|den|det)\s?)?"
    r"(?:reset|change|rotation|breach|leak|hack|wechsel|änderung|changement|cambio|wijziging|bytet|byttet|zmianie|смены)\w{0,3}\b")


def _inside_latin_word(text: str, start: int, end: int) -> bool:
    "A match that is part of a longer Latin word: 'pin' in 'pinned', 'spinach'."
    before = start and text[start - 1].isascii() and text[start - 1].isalpha() and text[start].isascii()
    after = end < len(text) and text[end].isascii() and text[end].isalpha() and text[end - 1].isascii()
    return bool(before or after)


def _clause_after(folded: str, end: int) -> str:
    window = folded[end:end + 64]
    clause = _CLAUSE_END.search(window)
    return window[:clause.start()] if clause else window


def _window_has_value(window: str, *, network_key: bool = False) -> bool:
    renewed = _NEW_ONE.search(window)
    if renewed:  # "password changed today, new one is X": what follows is the value
        window = " " + window[renewed.end():]
    for token in _WINDOW_TOKEN.finditer(window):
        between, value = window[:token.start()], token.group(1)
        if token.start() == 0 and value[0] in _GLUED:
            # The secret word's own identifier ("access_token_url=", "api-key.txt")
            # or the "=" of an assignment whose value is the next token.
            continue
        if _NOT_THE_SECRET.search(_WHEN_CHANGED.sub(" ", between)):
            return False
        assignment = _GLUED_ASSIGNMENT.match(value)
        if assignment:  # "password=password)": the value is what follows the "="
            value = assignment.group(1)
        if _listed_words_joined(value):  # "hasło do banku to click_hill_whale_shoulder"
            return True
        stripped = value.strip(".,;:!?)»”」’#*।")
        # a number, or digits in groups as a network key is read out ("8842-1937-5560")
        grouped = bool(_DIGIT_GROUPS.fullmatch(stripped))
        if not (stripped.isdigit() or grouped):
            if _secret_value(value):
                return True
        elif _number_is_the_value(stripped, between, grouped, network_key):
            return True
    return False


def _number_is_the_value(number: str, between: str, grouped: bool, network_key: bool) -> bool:
    """A number is a PIN only right after "is"/":"/"lautet"..., so "changed
    in 2024" or "since 2019" is not one."""
    fits = 4 <= len(number) <= 10 or grouped or (network_key and 16 <= len(number) <= 20)
    return fits and bool(_NUMERIC_LINK.search(between))


_GLUED = "_-.=:：/"
# "changed ..., the new one is": a change that gives the new value.
_NEW_ONE = re.compile(
    r"(?:\bnew one|\bthe new (?:one|password|pin|code)|\bneue[sn]?|\bnueva|\bnuevo|\bnouveau|\bnouvelle|\bnuova|\bnuovo|\bnieuwe|\bnow[aey])"
    r"(?:\s?[:=]\s?|\s(?:is|ist|lautet|es|est|è|to|jest)\s)")
_DIGIT_GROUPS = re.compile(r"\d{3,6}(?:-\d{3,6}){2,5}")
_GLUED_ASSIGNMENT = re.compile(r"[a-z_][\w.-]{0,40}[=:](.{3,})")


_PINS_VERB_RE = re.compile(_PINS_VERB)


# A PIN is a number: after its word, four to six digits that are no year
# count within a few words, with no copula ("ПИН моей карты 7731", "PIN-код
# от телефона 1357"), as languages that drop it write it.
_PIN_WORD = re.compile(r"pins?|پن|puk\S{0,8}|пук\S{0,6}|pin-?(?:code|kode|kod|koodi|код)\w{0,2}|пин(?:-код\w{0,2})?|пін(?:-код\w{0,2})?|पिन|পিন|暗証番号")
_PIN_NUMBER = re.compile(r"[^\s\d]{0,6}(?:\s[^\s\d]{1,20}){0,4}?\s(?!(?:19|20)\d\d(?!\d))\d{4,6}(?![\w-]|[.,:/]\d)")


_SPACED_DIGITS = re.compile(r"(?<=\b\d) (?=\d\b)|(?<=\b\d\d) (?=\d\d\b)")


def _near_value(folded: str) -> bool:
    for word in _SECRET_WORD.finditer(folded):
        if _inside_latin_word(folded, *word.span()) or _PINS_VERB_RE.match(folded, word.start()):
            continue
        # a number read out in groups ("şifresi 61 39 07") is one value
        clause = _SPACED_DIGITS.sub("", _clause_after(folded, word.end()))
        if _window_has_value(clause) or _spaced_passphrase(clause):
            return True
        if _PIN_WORD.fullmatch(word.group()) and _PIN_NUMBER.match(clause) and not _NOT_THE_SECRET.search(clause):
            return True
        if _value_in_next_sentence(folded, word.end()):
            return True
    return False


# "Can you remember my password for taxisnet? It's 4zAjbEi3WNmJrZt8Kl.":
# the question names the password, the next sentence opens with "it is" and
# gives it.
_SENTENCE_OPENS_WITH_IT = re.compile(
    r"(?:it[’']s|it is|είναι|c[’']est|es|ist|è|é|jest|это|to je|det er|det är|het is|dat is|das ist|ni)\s"
    r"([^\s\"'`«»“”「」‘’,;()。，、][^\s\"'`«»“”「」‘’,;。，、]{7,79})")


def _value_in_next_sentence(folded: str, end: int) -> bool:
    """A sentence that opens with "it is" and a value right after the
    sentence that named the secret word: a value with a letter and a digit
    or symbol, eight characters or more, not a number or a version."""
    window = folded[end:end + 64]
    stop = _CLAUSE_END.search(window)
    if not stop or _NOT_THE_SECRET.search(window[:stop.start()]):
        return False
    value = _SENTENCE_OPENS_WITH_IT.match(folded, end + stop.end())
    return bool(value) and len(value.group(1).strip(".,;:!?)»”」’")) >= 8 and _secret_value(value.group(1))


# "the code to the front door is 4590#": a code is a secret where it opens something.
_OPENS_SOMETHING = re.compile(
    r"\b(?:door|gate|front door|building|alarm|entry|entrance|garage|lock|safe|locker|keypad|padlock|intercom"
    # padlocks, lockers and safes in other languages
    r"|lucchetto|armadietto|cassaforte|candado|taquilla|casillero|caja fuerte|cadenas|casier|coffre-fort|coffre|vorhängeschloss|schloss|spind|schließfach|tresor"
    r"|antifurto|allarme|alarma|alarme|larm|hälytin|alarmanlage|alarmsystem|alarmsysteem"
    # the intercom at the door: "interphone", "citofono", "portero", "interfone", "Gegensprechanlage"
    r"|interphone|citofono|portero|telefonillo|interfone|gegensprechanlage|klingel|parlofoon|porttelefon|dørtelefon|ovipuhelin|kaputelefon|interkom"
    r"|kłódk\w{0,2}|szafk\w{0,2}|sejf\w{0,2}|hangslot|kluisje|kluis|cadeado|armário|cofre|замк?\w{0,2}|шкафчик\w{0,2}|сейф\w{0,2}|asma kilit|kilit|dolap|hänglås|skåp"
    r"|porte|portail|digicode|puerta|portal|cancello|portone|porta|portão|tür|haustür|tor|deur|poort|drzwi|brama|дверь|двери|домофон|kapı|dörr|ovi)\b"
    # as the cases of Slavic, Hungarian and Nordic inflect them: "от домофона", "do furtki", "a kapu kódja", "till porten"
    r"|\b(?:домофон|калитк|ворот|подъезд|двер|хвіртк|брам|furtk|bram|drzw|bran|brán|dveř|dver|zámk|zamk|trezor|kapu|ajtó|széf|porten|dörren|grind|kassaskåp|portón|bicicleta|bike|alarm panel"
    r"|domofon|förråd|key ?safe|lockbox|schlüsseltresor|schlüsselkasten|boîte à clés|sleutelkast\w{0,2}|kasa|sejf)\w{0,3}\b"
    r"|כספת|דלת|שער|מנעול|אזעקה"
    # German compounds ending in what opens ("Haustürschlüsseltresor", "Garagentor",
    # "Schlüsselkästchen"); "tor" only after a gate's kind ("Motor", "Faktor")
    r"|\b\w{0,20}(?:tür(?:e|en)?|schloss|tresor|schlüssel(?:kasten|kästchen|box|safe)|(?:garagen|hof|garten|einfahrts|eingangs|haupt|roll)tor)\b"
)
_CODE_VALUE = re.compile(
    r"(?<![a-z])(?:code|codice|código|codigo|kod\w{0,3}|kode\w{0,3}|koodi\w{0,3}|kód\w{0,3}|код\w{0,2}|κωδικ\w{0,3}|pin|пин|пін|combination|combo|combinaison|combinación|kombination|keypad"
    r"|[הלבמשו]?קוד(?: ה?סודי)?)(?!\w)"
    # what it opens may take a few words ("the code for the bike lock on the shed is ...", German compounds are long),
    # and the code may open with a letter ("B4712")
    r"(?:\s[^\s\d]{1,30}){0,8}?(?:\s?[:=]\s?|\s(?:is|est|c'est|c’est|es|è|é|ist|lautet|jest|är|er|on|to|je|ni|ass|—|–|-|это|הוא|היא)\s"
    # languages that drop the copula ("код от домофона 4821", "a kapu kódja 1947"): a code that is no year
    # (a year as one is named: up to 2049, so "code 2092" on a key safe is a code)
    r"|\s(?!(?:19\d\d|20[0-4]\d)(?!\d))(?=\d{4,8}(?![\w-])))"
    # never a date ("expired on 2024-01-05")
    # (a Russian intercom's code may hold a Cyrillic letter, "789к0871", "9802в")
    r"(?!(?:19|20)\d\d(?:-\d\d){1,2}(?![\w-]))(?:[#*]?[a-zа-я]?\d[\d#*a-zа-я-]{2,11}"
    # or read out digit by digit or in pairs ("7 3 1 9 0", "61 39 07")
    r"|\d(?: \d){3,7}|\d\d(?: \d\d){2,3})(?![\w])"
)
_SEED_PHRASE = re.compile(
    r"(?:(?:seed|recovery|mnemonic|backup|wallet|secret recovery)\s(?:phrase|words|seed|sentence)s?|mnemonic|seed"
    # named by its length: "my 24-word phrase starts: ..."
    r"|\b(?:12|15|18|20|21|24|25)[- ]word\s(?:\w{1,10}\s)?(?:phrase|seed|list|backup|mnemonic|sentence)s?)\b.{0,30}?(?:\bis\b|\bare\b|:|=)\s?"
    r"(?:[a-z]{3,10}[\s,]{1,3}){8,30}"
    r"|(?:frase semilla|frase de recuperación|phrase de récupération|wiederherstellungsphrase|seed-phrase|助记词|助記詞|シードフレーズ|시드 문구"
    r"|frase di recupero|frase de recuperação|herstelzin|återställningsfras|gjenopprettingsfrase|gendannelsessætning|fraza odzyskiwania|сид-фраза|фраза восстановления|kurtarma ifadesi)"
    r".{0,40}?(?:[a-z]{3,10}[\s,]{1,3}){8,30}",
    re.DOTALL,
)
_RECOVERY_CODE_NAME = (
    # the adjective first, as Slavic languages put it: "Резервные коды", "zapasowe kody"
    r"(?:(?:резервн|запасн|аварийн|zapasow|awaryjn|záložn|rezervn)\w{1,3} (?:код|ключ|kod|klucz|kód)\w{0,3}|"
    r"(?:recovery|backup|emergency|2fa|two-factor|mfa|otp|one-time|verification|authenticator|scratch|reserve|wiederherstellungs|herstel|återställnings|gjenopprettings|gendannelses|palautus"
    # "Notfallcodes", "noodcodes", "nödkoder", "nødkoder", "hätäkoodit"
    r"|notfall|nood|nöd|nød|hätä)"
    r"[\s-]?(?:codes?|keys?|tokens?|schlüssel|sleutels?|nyckel\w{0,2}|nøkkel\w{0,2}|nøgle\w{0,2}|koodi\w{0,2}|kod(?:er|e|en|erna|ene)?\b)"
    # key word first: "clé de récupération", "klucz odzyskiwania", "ключ восстановления", "恢复密钥"
    r"|(?:codes?|clés?|claves?|chiav[ei]|códigos?|codici|klucz\w{0,2}|kod\w{0,2}|ключ\w{0,2}|код\w{0,2}) (?:de |d'|di |da |do |del |)"
    r"(?:récupération|recuperación|recuperação|recupero|secours|odzyskiwania|восстановления|відновлення|kurtarma"
    r"|respaldo|emergencia|emergência|emergenza|urgence|sicurezza|zapasow\w{1,2}|awaryjn\w{1,2}|резервн\w{1,3}|аварийн\w{1,3})"
    r"|(?:恢复|復原|回復|复原|復旧|복구)\s?(?:密钥|金鑰|密鑰|码|碼|キー|コード|키|코드)|バックアップコード|备用码|備用碼|백업 코드)"
)
_RECOVERY_CODES = re.compile(
    _RECOVERY_CODE_NAME
    + r".{0,40}?(?:[a-z0-9]{4,6}-[a-z0-9]{4,6}|\b\d{6,10}\b|\b\d{4}[ -]\d{4}\b"
    # or letters and digits mixed, as GitHub's and X's backup codes are ("8rk2pq7m")
    r"|\b(?=[a-z]{0,9}\d[a-z]{0,9}\d)(?=\d{0,9}[a-z])[a-z0-9]{8,10}\b"
    # GitLab's (16 hex digits), Steam Guard's ("R48217"), and groups of four
    # that each hold a digit, as Dropbox prints them ("7k2m 9pxq 4wzt")
    r"|\b[0-9a-f]{16}\b|\b[a-z]\d{5}\b|\b(?=[a-z]{0,39}\d)(?=\d{0,39}[a-z])[a-z0-9]{11,40}\b"
    r"|\b(?:(?=[a-z]{0,3}\d)[a-z0-9]{4}\s){2,7}(?=[a-z]{0,3}\d)[a-z0-9]{4}\b"
    # or letters alone, four to a group ("cmig rxmg stfw zduh"), two groups or more
    # with no vowel, as no words are written
    r"|\b(?=(?:[a-z]{4}\s){0,6}[b-df-hj-np-tv-xz]{4}\s(?:[a-z]{4}\s){0,6}[b-df-hj-np-tv-xz]{4}\b)(?:[a-z]{4}\s){3,7}[a-z]{4}\b)",
    re.DOTALL,
)
# Or a list of them, as Dropbox and others print them: three or more, each
# two to four groups of four ("sqng vikg cxbq, qlng ctek nqbi, ..."), split
# by commas or lines.
_CODE_ITEM = r"[a-z0-9]{4}(?: [a-z0-9]{4}){1,3}"
_RECOVERY_CODE_LIST = re.compile(
    _RECOVERY_CODE_NAME + rf".{{0,40}}?(?<![\w-])((?:{_CODE_ITEM}(?:[,;] ?|\s?\n\s?)){{2,15}}{_CODE_ITEM})(?![\w-])", re.DOTALL)
_CODE_ITEM_SPLIT = re.compile(r"[,;\n]\s?")
_NO_VOWEL = re.compile(r"[^aeiou]{4}")


def _recovery_code_list(folded: str) -> bool:
    """Three codes or more of one shape (the same number of groups each),
    one group at least with a digit or no vowel: codes, not a list of words
    ("back them up, keep them safe, ...")."""
    for match in _RECOVERY_CODE_LIST.finditer(folded):
        items = [item.split(" ") for item in _CODE_ITEM_SPLIT.split(match.group(1).strip())]
        groups = [group for item in items for group in item]
        if len({len(item) for item in items}) == 1 and any(
                any(ch.isdigit() for ch in group) or _NO_VOWEL.fullmatch(group) for group in groups):
            return True
    return False


# Some providers' keys are UUIDs (Postmark, Heroku's old keys, Snyk): a UUID
# named as a token or key, not as an id ("request id", "tenant id").
# "API key" as other languages write it: "API-Schlüssel", "clé API", "API-ключ", "API キー".
_API_KEY_WORDS = (r"api[ _-]?(?:schlüssel|sleutel|nyckel|nøkkel|nøgle|avain|kulcs|klíč|kľúč|ключ\w{0,2}|anahtar\w{0,3}|kunci|キー|密钥|密鑰|키)"
                  r"|(?:clé|clave|chiave|chave|klucz|cheie|ключ\w{0,2}) (?:d[e']\s?)?(?:l')?api")
_KEYWORD_UUID = re.compile(
    rf"(?:{_API_KEY_WORDS})[^\n]{{0,20}}?\b[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}\b"
    r"|(?:api[ _-]?key|secret[ _-]?key|client[ _-]?secret|(?:api|server|account|access|auth|secret|bearer|session|bot|refresh|personal access)[ _-]?token)s?"
    r"\b[^\n]{0,20}?\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_KEYWORD_HEX = re.compile(
    # (a GCP service account key's "private_key_id" travels with the key it names;
    # OpenWeatherMap calls its API key "appid")
    r"(?:api[ _-]?key|secret|secreto|segreto|secrète?|geheimnis|token|access key|private[ _-]?key(?:[ _-]?id)?|auth|client secret|signing key|encryption key|hmac key|appid)\b.{0,25}?\b(?:0x)?[0-9a-f]{32,128}\b"
    # a private key as other languages name it: "der private Schlüssel meiner Wallet: ef22…"
    r"|(?:private[nr]?\s(?:\w+\s)?schlüssel|clé privée|clave privada|chiave privata|chave privada|klucz prywatny|privésleutel|privé sleutel|приватн\w{1,3} ключ|закрыт\w{1,3} ключ|私钥|私鑰|秘密鍵|개인 ?키|özel anahtar)"
    r".{0,40}?\b(?:0x)?[0-9a-f]{64}\b"
    rf"|(?:{_API_KEY_WORDS}).{{0,40}}?\b(?:0x)?[0-9a-f]{{32,128}}\b",
    re.DOTALL,
)

# --- Numbers: payment cards, IBANs, national ids -----------------------------

_DIGIT_RUN = re.compile(r"(?<![\d.,])(?:\d[ -]?){12,19}(?![\d])")
_IBAN = re.compile(r"\b([A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,3})?)\b")
_SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")
_NINO = re.compile(r"\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b")
_KOREAN_RRN = re.compile(r"(?<![\d-])\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])-[1-4]\d{6}(?![\d-])")
# An identity number named in many languages: its own name ("OIB", "AMKA",
# "CURP", "РНОКПП") or a phrase for one ("ID number", "personal code",
# "numéro de sécurité sociale", "身份证号", "מספר זהות").
_ID_NAMES = (
    r"social security|\bssn\b|national insurance|\bnino\b|passport|national id|national number|identity (?:card|number|code)|identification number|id card|id number|id no\b|personal (?:id|number|code|identity)|tax id|tax file number|\btin\b|\btfn\b|\bitin\b"
    r"|\bdni\b|\bnie\b|\bnif\b|codice fiscale|steuer-?id|steueridentifikationsnummer|personalausweis|sozialversicherungsnummer|versicherungsnummer|\bsvnr\b|ausweisnummer|identifikationsnummer|\bahv\b|\bavs\b"
    r"|\bcpf\b|\brg\b|aadhaa?r|pan card|\bpesel\b|numer dowodu|dowód osobisty"
    r"|\bbsn\b|burgerservicenummer|rijksregister\w{0,8}|\binsz\b|registre national|numéro national|numéro d'identification|personnummer|samordningsnummer|fødselsnummer|\bd-nummer|\bcpr\b|kennitala|\bhetu\b|henkilötunnu\w{0,6}"
    r"|\bcnp\b|\begn\b|\bегн\b|\bjmbg\b|\bemšo\b|\bemso\b|\boib\b|osobni identifikacijski|matični broj|матични број|\bјмбг\b|\bембг\b|\bembg\b|isikukood\w{0,2}|personas kod\w{0,2}|asmens kod\w{0,2}|rodné číslo|rodného čísla"
    r"|személyi (?:szám|azonosító)\w{0,3}|\btaj\b|taj-szám\w{0,3}|adóazonosító|\bamka\b|\bαμκα\b|\bαφμ\b|αριθμός ταυτότητας|κοινωνικής ασφάλισης"
    r"|\bsin\b|social insurance|\bnhs number|\bpps\b|my ?number|マイナンバー|個人番号|身份证\w{0,2}|身分證|身份證|居民身份|주민등록번호|외국인등록번호"
    r"|sécurité sociale|numéro fiscal|\bnir\b|carte d'identité|número de identidad|número de identificación|documento (?:nacional )?de identidad|seguridad social|cédula|\bcurp\b|\brfc\b|\brut\b|\bcuil\b|\bcuit\b"
    r"|carta d'identità|número de contribuinte|cartão de cidadão|segurança social|паспорт\w{0,3}|снилс|\bинн\b|\bипн\b|\bрнокпп\b|\bіпн\b|идентификационн\w{0,4} номер|ідентифікаційн\w{0,4} номер"
    r"|driver'?s licen[cs]e number|licence number|medicare (?:card|number|no\b)|kimlik numara\w{0,3}|kimlik no\b|tc kimlik|\bnric\b|\bhkid\b|\bcnic\b|\bnik\b|\bktp\b|mykad|kad pengenalan|căn cước|\bcccd\b|chứng minh nhân dân"
    r"|matricule (?:national|luxembourgeois)|numéro d'identification national|numéro d'assurance sociale|assurance sociale|seguro social|\bniss\b|\bnuss\b"
    # an identity card as Turkish and others name it: "nüfus cüzdanımdaki numara ..."
    r"|nüfus cüzdan\w{0,6}|kimlik kart\w{0,4}|carnet de identidad|bilhete de identidade|identiteitskaart|henkilökortti\w{0,3}|személyi igazolvány\w{0,3}"
    r"|občansk\w{1,2} průkaz\w{0,2}|osobna iskaznica|лична карта|удостоверени\w{1,2} личности|посвідчення особи|buletin\w{0,3} de identitate"
    r"|\bnin\b|\bbvn\b|\biqama\b|\bnhi number|\bumid\b|philsys|voter id|\bиин\b|\bidnp\b|\bлнч\b|davčn\w{1,3} številk\w{1,2}|\bppsn\b|জাতীয় পরিচয়\w{0,3}|এনআইডি"
    r"|תעודת (?:ה)?זהות|מספר (?:ה)?זהות|الرقم القومي|الرقم الوطني|رقم الهوية|بطاقة الهوية|کد ملی|شماره ملی|आधार|पहचान संख्या|เลขประจำตัวประชาชน|บัตรประชาชน"
)
# Any number right after an id's name (or thousands grouped by dots, as
# Uruguay's, Chile's and Argentina's ids are written, "5.164.004-9"; a
# date's two-digit groups are not).
_ID_WORDS = re.compile(
    rf"(?:{_ID_NAMES})"
    r".{0,30}?(?<![\w-])([A-Z0-9]{0,3}[-\s]?\d[\d\s-]{4,20}\d(?:\s?[A-Z])?|\d{1,3}(?:\.\d{3}){2,}(?:-[\dK])?)(?![\w])",
    re.IGNORECASE | re.DOTALL,
)
# Names of ids that are also common words or initials elsewhere (Polish
# "NIP", Colombian "NIT", Peruvian "RUC", New Zealand's "IRD number",
# India's "PAN"): a number after them counts only when that id's own
# python-stdnum check accepts it. (name pattern on the lower-cased text, modules)
_CHECKED_ID_NAMES = tuple((re.compile(name), modules) for name, modules in (
    (r"\bnip\b", ("pl.nip",)),
    (r"\bnit\b", ("co.nit", "gt.nit", "sv.nit")),
    (r"\bruc\b", ("pe.ruc", "ec.ruc", "py.ruc")),
    (r"\bcnpj\b", ("br.cnpj",)),
    (r"\bird\b|inland revenue", ("nz.ird",)),
    (r"\brif\b", ("ve.rif",)),
    (r"\bpib\b|\bпиб\b", ("rs.pib", "me.pib")),
    (r"\bedb\b|\bедб\b", ("mk.edb",)),
    (r"\bpan\b", ("in_.pan",)),
    (r"\bnpwp\b", ("id.npwp",)),
    (r"vergi (?:kimlik )?n(?:o\b|umara\w{0,3})|\bvkn\b", ("tr.vkn",)),
    (r"\butr\b|unique taxpayer reference", ("gb.utr",)),
    (r"steuernummer|\bstnr\b|abgabenkontonummer", ("de.stnr", "at.tin")),
    (r"mã số thuế|\bmst\b", ("vn.mst",)),
    (r"\bkra pin\b", ("ke.pin",)),
    (r"\bnas\b|numéro d'assurance sociale", ("ca.sin",)),
    (r"\bαφτ\b", ("cy.vat",)),  # Cyprus's tax identity code
    (r"\bунп\b|\bunp\b", ("by.unp",)),  # Belarus's payer number
    (r"\b(?:south african|sa) id\b", ("za.idnr",)),
))
# A number as ids are written: digits in groups, maybe letters before
# ("V-12345678-9", "ABCPK1234F") and a check letter after; the words between
# the name and it are skipped.
_ID_CANDIDATE = re.compile(r"(?<![\w.,/-])[A-Z]{0,5}-?\d(?:[ ./-]?\d){3,20}(?:-?[A-Z])?(?![\w-]|[.,/]\d)")


def _checked_named_id(lower: str, upper: str) -> bool:
    "A number after a short id name that the named id's check accepts."
    for name, modules in _CHECKED_ID_NAMES:
        for match in name.finditer(lower):
            window = upper[match.end():match.end() + 60]
            for candidate in _ID_CANDIDATE.finditer(window):
                # a following number may be joined by a space ("10406543213 2019"): try without it
                groups = candidate.group().split(" ")
                if any(_valid_id(" ".join(groups[:n]), modules) for n in range(len(groups), 0, -1)):
                    return True
    return False


# Matched on the lower-cased text: an alternation this long runs twice as
# fast without IGNORECASE, and most texts name no id, so the two rules
# that need a name run only after it is found.
_ID_CONTEXT = re.compile(rf"(?:{_ID_NAMES})")

# --- Random-looking tokens ---------------------------------------------------

_LONG_TOKEN = re.compile(r"[A-Za-z0-9_\-+/=]{32,500}")
_URL = re.compile(r"\b(?:https?|ftp)://[^\s]{1,2000}|\bwww\.[^\s]{1,2000}")
# Public keys: SSH, PGP public blocks, age recipients.
_PUBLIC_KEY = (
    r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d{3}|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)\s[A-Za-z0-9+/=]{20,2000}"
    r"|-----BEGIN PGP PUBLIC KEY BLOCK-----(?:[^-]|-(?!----END)){0,20000}(?:-----END PGP PUBLIC KEY BLOCK-----)?"
    r"|\bage1[a-z0-9]{58}\b"  # an age recipient
)
_PUBLIC_KEY_RE = re.compile(_PUBLIC_KEY)
_PUBLIC_BLOB = re.compile(
    _PUBLIC_KEY
    + r"|\b(?i:sha)(?:1|224|256|384|512)[:-][A-Za-z0-9+/=]{20,200}"
    r"|\bh1:[A-Za-z0-9+/=]{40,50}|\b(?:Qm[1-9A-HJ-NP-Za-km-z]{44}|bafy[a-z2-7]{50,70}|bc1[a-z0-9]{25,90}|npub1[a-z0-9]{50,70}|0x[0-9a-fA-F]{40})\b"
    r"|\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
    # what is named public or an address is meant to be shared: "minisign public key RWQf...", "Bitcoin address 1kcC..."
    r"|(?i:public key|(?:bitcoin|btc|litecoin|ltc|wallet) address)\W{1,3}[A-Za-z0-9+/=]{25,120}"
    r"|\$(?:2[abxy]?|argon2(?:id|i|d)|[1567]|pbkdf2[\w-]{0,20}|scrypt|y|gy)\$[A-Za-z0-9./+=$,-]{10,300}"  # password hashes (crypt formats)
)


# Words that mark a value as a stand-in (detect-secrets' heuristics, gitleaks).
_PLACEHOLDER_WORDS = "changeme|placeholder|redacted|example|sample|dummy|fake"
# "key = value" as in config files and shell lines: the name says secret,
# the value is not a placeholder or a reference to one.
_ASSIGNED = re.compile(
    r"(?i:(?<![\w-])[\w.-]{0,40}?(?:api[_-]?key|apikey|api[_-]?token|secret(?:[_-]?(?:key|token))?|client[_-]?secret|access[_-]?(?:key|token)"
    r"|auth[_-]?token|refresh[_-]?token|bearer[_-]?token|bot[_-]?token|token|passw(?:or)?d|pwd|passphrase|private[_-]?key|signing[_-]?key))"
    r"(?![\w-])[\"']?\s{0,3}(?::=|=>|[:=])\s{0,3}[\"'`]?([^\s\"'`,;<>]{6,300})"
)
# A token or secret named in prose, in any grammar ("Vercel erişim token'ım:",
# "クライアントシークレットはこれです:", "session cookie ...: sessionid="), then a
# value that mixes upper case, lower case and digits at random: a key.
_NAMED_SECRET_VALUE = re.compile(
    r"(?i:\b(?:token|secret|cookie|jeton|gettone|anahtar|sessionid)\w{0,5}|シークレット|トークン|秘钥|祕鑰|令牌|토큰|시크릿)"
    r"[^\n:=]{0,30}[:=]\s{0,3}[\"'`]?([A-Za-z0-9_~.+/-]{16,200})")
# A key named by its compound name, then its value after a colon, "=" or
# only a space ("applicationKey K00…", "client secret ~Wjm~g.t0…", "psk
# dY4y…", "クライアントシークレットはこれです: …"): a long value mixing upper
# case, lower case and digits is the key, whatever else it holds (Azure's
# client secrets hold "~" and ".", which a drawn-letters test reads as code).
# A public key is no such name.
_NAMED_KEY_VALUE = re.compile(
    r"(?i:(?<![a-z])(?<!public )(?:client[ _-]?secret|consumer[ _-]?secret|application[ _-]?key|app[ _-]?(?:key|secret)|secret[ _-]?(?:access[ _-]?)?key"
    r"|access[ _-]?key|api[ _-]?key|psk|pre-?shared[ _-]?key)s?(?![a-z])"
    r"|クライアントシークレット|客户端密钥|用戶端密碼|클라이언트 시크릿)"
    r"[^\n:=]{0,30}?(?:[:=]|\s)\s{0,3}[\"'`]?([A-Za-z0-9_~.+/-]{20,200})")
# A web session's id after its cookie's name ("sessionid=mjqjpf…",
# "PHPSESSID=…"): whoever holds it is logged in.
_SESSION_ID = re.compile(r"(?i:(?<![a-z])(?:php|j|asp\.net_)?sess(?:ion)?[_-]?id)\s?[:=]\s?[\"']?([A-Za-z0-9%_-]{20,300})")


def _long_key(value: str) -> bool:
    "Twenty characters or more, upper case, lower case and digits, of high entropy; no placeholder, reference or dotted name."
    value = value.rstrip(".,;:")
    return (len(value) >= 20 and any(c.isupper() for c in value) and any(c.islower() for c in value)
            and any(c.isdigit() for c in value) and _entropy(value) > 3.8
            and not _placeholder_token(value) and not _REFERENCE.search(value) and not _NAME_REFERENCE.fullmatch(value))


def _session_value(value: str) -> bool:
    "Letters and digits both, not a placeholder: a session's id."
    return (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
            and not _placeholder_token(value) and not _REFERENCE.search(value))


# Oracle's user/password@host (JDBC thin, sqlplus, a TNS alias).
_ORACLE_LOGIN = re.compile(
    r"(?i:jdbc:oracle:\w{1,10}:|\bsqlplus\s{1,3}|\boracle\b[^\n]{0,40}?\s)([A-Za-z][\w$#]{0,30})/([^\s/@\"']{1,100})@")
# user/password@host:port, in any driver's call or string (Oracle's EZConnect,
# cx_Oracle.connect('hr/pw@db:1521/svc')): the port tells a host from a
# package version ("actions/checkout@v4").
_SLASH_LOGIN = re.compile(r"(?<![\w/.-])[A-Za-z][\w$#]{0,30}/([^\s/@\"']{1,100})@[\w.-]{1,100}:\d{2,5}\b")
# A database or cluster client given a user and a password on its command
# line: "-u user -p 'pw'", "-pSECRET" (mysql glues it); the value must hold a
# letter, so psql's "-p 5432" (a port) is not one; after a space, unquoted,
# also a digit ("mysql -u root -p shopdb" asks for the password, shopdb is a database).
# sqlcmd and mssql-cli spell the flags -U and -P; sshpass's -p is only ever a password.
_CLI_PASSWORD = re.compile(
    r"(?:^|\s)(?:(?:-u|-U|--user(?:name)?)[\s=]{1,3}[\"']?[^\s\"']{1,60}[^\n]{0,80}?\s(?:-p|-P|--password)|sshpass\s{1,3}-p"
    # Samba's clients take "-U user%password"
    r"|-U\s{1,3}[\"']?[^\s\"'%]{1,60}%"
    # Redis and its forks take it after -a: "valkey-cli -h cache -a Pw"
    r"|(?:redis|valkey|keydb)-cli\b[^\n]{0,80}?\s-a)"
    r"(\s{1,3}[\"']?|=?[\"']?)([^\s\"']{4,200})")
# A TOTP seed after the words that name one: base32, maybe in groups of four.
_TOTP_SEED = re.compile(
    # (also the "seed" an authenticator is given, and two-factor in French, Russian, Vietnamese, Turkish)
    r"(?i:(?:\b(?:totp|otp|2fa|mfa|two-factor|authenticator|authy|otpauth|autenticador|autenticatore|authentificateur|authentifizierung|zwei-faktor|tweestaps|dwuetapow\w{0,3}|doble factor|dois fatores"
    r"|seed|double authentification|authentification à deux facteurs|двухфактор\w{0,6}|двухэтапн\w{0,4}|двофактор\w{0,6}|xác thực hai (?:lớp|yếu tố)|xác thực 2 lớp|iki faktörlü|iki adımlı)\b"
    r"|二段階認証|认证器|驗證器|验证器|两步验证|兩步驗證|二次验证|2단계 인증|인증기)[^\n]{0,60}?)(?<![A-Za-z0-9])"
    r"((?i:[A-Z2-7]{4}(?: ?[A-Z2-7]{4}){3,15}|[A-Z2-7]{16,64})={0,6})(?![A-Za-z0-9])")
# curl -u user:password, --user "user:password"
_CURL_USER = re.compile(r"(?:\s-u|--user)\s{1,3}[\"']?([^\s\"':]{0,100}):([^\s\"']{1,200})")
_REFERENCE = re.compile(
    r"^(?:\$|%|\{|<|\[|\(|#|@|&|var\.|env\.|os\.|process\.env|secrets\.|vars\.|settings\.|config\.)"
    r"|(?i:x{4,}|\*{3,}|\.{3}|your[_-]|here$|_here\b|" + _PLACEHOLDER_WORDS + ")"
    r"|(.)\1{5,}"
)
_PASSWORD_HASH = re.compile(r"^\$(?:2[abxy]?|argon2(?:id|i|d)|[1567]|pbkdf2[\w-]*|scrypt|sha\d*|md5|y|gy)\$")
_NOT_A_SECRET_VALUE = frozenset(
    "1password bitwarden lastpass keepass keepassxc dashlane wpa wpa2 wpa3 wep 2fa mfa totp sha1 sha256 sha512 md5 "
    "bcrypt argon2 argon2id pbkdf2 scrypt utf-8 utf8 ascii base64 hunter2 true false null none yes no".split())


_COUNTING = re.compile(
    r"\d{1,4}(?:st|nd|rd|th|s|x|k|m|h|d|gb|mb|chars?|characters?|days?|months?|years?)"
    # a size, not a value: "a 4-digit one", "6-character", "4-stelliger", "à 4 chiffres"
    r"|\d{1,2}-(?:digits?|chars?|characters?|letters?|words?|numbers?|figures?|places?|stellig\w{0,3}|ziffern?\w{0,2}|cifr\w{0,3}|chiffres?|d[ií]gitos?|cyfrow\w{0,3}|значн\w{0,3}|haneli)", re.I)
_NAME_REFERENCE = re.compile(r"[a-z_]+(?:\.[a-z_]+)+|[A-Z_]{6,}")  # a dotted name or a CONSTANT_NAME


def _names_a_secret(value: str) -> bool:
    """The value is the secret's own word or a variable named after it:
    ``password=password``, ``token: token``, ``password = "password"`` name
    where a secret goes, not what it is (detect-secrets' keyword plugin
    skips the same)."""
    word = value.strip(".,;:!?)]}»”」’\"'`").casefold()
    word = re.sub(r"^(?:my|the|your|new|old|db|user|admin|default)[_-]?", "", word)
    if not word or any(ch.isdigit() for ch in word):
        return False  # "passwort123" is a (weak) password, not the word
    return bool(_SECRET_WORD.fullmatch(word.replace("_", " ")) or _SECRET_WORD.fullmatch(word))


# A path: "secret/data/prod/db", "/etc/ssl/private", "~/.ssh/id_ed25519".
_PATH_VALUE = re.compile(r"(?:~|\.{1,2})?/?(?:[A-Za-z_][\w.-]{0,40}/){1,12}[\w.-]{0,40}|/[A-Za-z_][\w.-]{0,40}")


# A generated password may open with a symbol ("@pS*2DGj$9R(Tm"): after a
# sigil that opens no bracket, letters, a digit and a further symbol make a
# value, not a reference ("$DB_PASSWORD", "@handle", "#channel").
_SIGIL_PASSWORD = re.compile(r"[@$#%&](?=[^\W_])(?=[^\d]{0,80}\d)(?=[\d\W_]{0,80}[^\W\d_])(?=.{0,80}[!#$%^&*()+=?~@])"
                             # or letters no name is made of: seven consonants in a row ("$tcbqwfnNSRqdto_")
                             r"|[@$#%&](?=\w{0,40}[bcdfghjklmnpqrstvwxzBCDFGHJKLMNPQRSTVWXZ]{7})"
                             # or two runs of digits with letters between ("$Stave846pS3"): a name has one at most
                             r"|[@$#%&](?=[^\W_]{0,40}\d+[^\W\d_]+\d)")


def _is_reference(value: str) -> bool:
    return bool(_REFERENCE.search(value[1:] if _SIGIL_PASSWORD.match(value) else value))


def _never_a_value(value: str) -> bool:
    return (len(value) < 4 or bool(_PATH_VALUE.fullmatch(value.rstrip(".,;:!?)"))) or value.casefold() in _NOT_A_SECRET_VALUE or _is_reference(value)
            or bool(_PASSWORD_HASH.match(value)) or "://" in value or bool(_NAME_REFERENCE.fullmatch(value))
            or _names_a_secret(value))


def _secret_value(value: str, *, named: bool = False) -> bool:
    """Does this read as a secret's value rather than a word, a number that
    counts something, a placeholder or a reference to where the secret lives?"""
    value = value.strip(".,;:!?)]}»”」’\"'`")
    if _never_a_value(value):
        return False
    has_letter = any(ch.isalpha() for ch in value)
    if not has_letter:
        return False
    if any(ch.isdigit() for ch in value):
        return not _COUNTING.fullmatch(value)
    if any(not ch.isalnum() for ch in value):
        return bool(re.search(r"[!@#$%^&*+=?~]", value))
    return named and len(value) >= 8 and any(ch.isupper() for ch in value) and any(ch.islower() for ch in value)


def _placeholder_token(token: str) -> bool:
    """A token's shape filled with one repeated character ('ghp_XXXX...',
    'sk-xxxx...'), or a documentation example: providers end their sample
    keys in EXAMPLE (AWS's AKIAIOSFODNN7EXAMPLE; gitleaks allowlists
    '.+EXAMPLE$') or name them fake, dummy, sample, placeholder."""
    if token.endswith("EXAMPLE") or _PLACEHOLDER_WORD.search(token):
        return True
    body = re.sub(r"^[A-Za-z]{1,12}[_-](?:[A-Za-z0-9]{1,8}[_-])?", "", token)
    return len(body) >= 8 and max(body.count(ch) for ch in set(body)) / len(body) > 0.6


_PLACEHOLDER_WORD = re.compile("(?i:" + _PLACEHOLDER_WORDS + ")")


# A login context, in any tense and several languages: "logs into",
# "signed in", "logge mich ein", "me connecte", "登录", "ログイン"...
_LOGIN_CONTEXT = re.compile(
    r"(?i:\b(?:account|log(?:s|ged|ging)?[ -]?(?:in|on)(?:to)?|login|logon|sign(?:s|ed|ing)?[ -]?(?:in|on)(?:to)?|username|user name"
    r"|credentials|ssh(?:es|ed)?|authenticat\w{0,5}|anmeld\w{0,4}|(?:ein)?logg\w{0,4}|zugangsdaten|connect\w{0,6}|connexion|identifiants?"
    r"|inicio de sesión|inici\w{1,3} sesión|acced\w{1,4}|credenziali|entro|войти|вход\w{0,3}|логин\w{0,2}|захож\w{0,2}|zaloguj\w{0,4}|loguj\w{0,4}"
    r"|inloggen|logga in|kirjaud\w{0,6}|giriş|gir(?:iyor|er|dim|erim|mek)\w{0,3}"
    # what a password unlocks: "my laptop unlocks with Winter#Harbor77"
    r"|unlock\w{0,4}|entsperr\w{0,4}|déverrouill\w{0,5}|desbloque\w{0,4}|desbloqu\w{0,4}|sblocc\w{0,4}|ontgrendel\w{0,3}|odblok\w{0,5}|odemk\w{0,5}|разблокир\w{0,5}|розблок\w{0,6}"
    # an account and its admin, in other languages: "le code du compte admin est Pf8@zLq#1vR"
    r"|admin|administrator|compte|cuenta|conta|konto|conto|account\w{0,2}|аккаунт\w{0,2}|акаунт\w{0,2}|учётн\w{0,4}|учетн\w{0,4}|hesab\w{0,3}|tili\w{0,3}|fiók\w{0,3}|λογαριασμ\w{0,3}|akun|tài khoản)\b"
    r"|登录|登入|登陆|帐号|账号|帳號|账户|賬戶|用户名|ログイン|アカウント|로그인|계정|아이디|حساب|חשבון|खाता|บัญชี|解锁|解鎖|ロック解除|잠금 해제)"
)
_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)|[\n。！？；]")
# What else a password opens, where a token only a password looks like,
# its letters drawn at random, is read as one: a network ("Wifi du chalet —
# Box_5G / NZkCjFin0Q4P*zK"), a portal, a thing that "opens with" it. (A
# name's letters are no draw: "the portal build uses Node18+Vite".)
_OPENED_BY_PASSWORD = re.compile(
    r"(?i:\b(?:wi-?fi|wlan|wireless|hotspot|ssid|router|portal|portail|portale|portaal)\b"
    r"|\bopen(?:s|ed)?\s(?:only\s)?with\b|öffnet\s(?:sich\s)?mit|s'ouvre avec|se abre con|si apre con|opent met)")
# "account steamlena / Pixel!Cat7": a login and its password, around a spaced slash
# (paths and versions, "/var/log", "11/24.04", are written without spaces).
_LOGIN_PAIR = re.compile(r"[^\s/]{3,60}\s/\s([^\s/]{4,80})")
# "seller_iuyztf pass Lantern%024kestrel", "user jana.dvorak84, pw ...",
# "volunteer_12 / pass ...": a
# user name (a handle, or a name with "_", "." or a digit in it) then the
# short word for its password and the value.
_HANDLE_PAIR = re.compile(
    r"(?<![^\s(\[\"'“«:])@?(?=[\w.-]{0,40}[_.\d])[A-Za-z][\w.-]{2,40}(?:[,;]|\s[/|])?\s(?:pass|pw|pwd|passwd|mdp|senha|clave|passwort|hasło|şifre|heslo)\s?[:=]?\s([^\s/]{4,80})")
# "user 'priya.n2014' and pass weptc…", "user=dev_olu pass=Pebble…": a user
# and its name, then "pass" and its value (not a flag: "user guide: pass --verbose").
_USER_PASS = re.compile(
    r"(?i:\buser(?:name)?\b)(?:\s?[:=]\s?|\sis\s|\s)[\"']?[\w.@+-]{2,40}[\"']?(?:,|\s[/|])?\s(?:and\s)?pass\b\s?[:=]?\s?(?!-)([^\s/\"']{4,80})")
# "pw ewh7Vzi^VR", "PWD: Tq8#rLm2xZ": the short word for a password right
# before a value only a password looks like, no user name needed.
_SHORT_WORD_VALUE = re.compile(r"(?<![\w.-])(?i:pw|pwd|passwd)\s?[:=]?\s([^\s\"'`]{8,80})")
_EMAIL_PAIR = re.compile(r"\S{3,64}@\S{3,100}\s/\s([^\s/]{4,80})|\S{3,64}@\S{3,100}[,;]?\s(?:pass|pw|pwd|password|mdp|senha|clave|passwort)\s?[:=]?\s([^\s/]{4,80})")
# "zephyr_harbor_copper": three words or more joined, as a passphrase is written
_JOINED_WORDS = re.compile(r"[a-z]{3,12}(?:[_-][a-z]{3,12}){2,5}")


def _passphrase_words() -> frozenset[str]:
    "The words a passphrase generator draws from: BIP-39's English list (2,048 common words)."
    return _mnemonic_word_lists(("english",))[0][1]


def _listed_words_joined(token: str, least: int = 3) -> bool:
    """``least`` words or more of the list joined by "_" or "-", as a
    generated passphrase is written ("click_hill_whale_shoulder");
    identifiers hold words no such list has ("user_password_hash") or name a
    secret themselves ("secret_key_base")."""
    token = token.strip(".,;:!?)]}»”」’\"'`").casefold()
    return (bool(_JOINED_WORDS.fullmatch(token)) and token.count("_") + token.count("-") >= least - 1
            and all(word in _passphrase_words() for word in re.split(r"[_-]", token))
            and not _SECRET_WORD.search(re.sub(r"[_-]", " ", token)))


# The clause up to a comma or dash: a passphrase of spaced words ends there
# ("es cloud law attitude exchange, apúntala").
_PHRASE_STOP = re.compile(r"\s?[,—–]|\s-\s")


def _spaced_passphrase(clause: str) -> bool:
    """Four to eight words of the list, spaced, right after a secret word
    and its link ("Şifrem buffalo later dry pattern", "parola ... este
    second jump cream damp"), ending the clause."""
    stop = _PHRASE_STOP.search(clause)
    head = clause[:stop.start()] if stop else clause.rstrip()
    words = head.split(" ")
    tail = list(itertools.takewhile(lambda word: word in _passphrase_words(), reversed(words)))
    if not 4 <= len(tail) <= 8:
        return False
    between = " ".join(words[:len(words) - len(tail)]) + " "
    return bool(_NUMERIC_LINK.search(between)) and not _NOT_THE_SECRET.search(between)
_BARE_TOKEN = re.compile(r"(?<![^\s(\[\"'“«「])[^\s\"'“”«»「」()]{8,64}")
# A whole space-delimited run, brackets and all: a generated password may
# hold them anywhere (",)XsJI)M*4l#)9").
_SPACED_TOKEN = re.compile(r"(?<!\S)\S{8,64}(?!\S)")


_EMAIL = re.compile(r"[^@\s]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,5}")


def _password_shaped(token: str) -> bool:
    "What only a password looks like: upper and lower case, a digit and a symbol; no e-mail or URL."
    token = token.rstrip(".,;:!?)]}")
    return (8 <= len(token) and not _EMAIL.fullmatch(token) and "://" not in token
            and any(c.isupper() for c in token) and any(c.islower() for c in token)
            and any(c.isdigit() for c in token) and bool(re.search(r"[!#$%^&*+=?~@()]", token))
            and not _never_a_value(token))


_RANDOM_LETTERS = re.compile(r"[bcdfghjklmnpqrstvwxzBCDFGHJKLMNPQRSTVWXZ]{6}")


_CAMEL_JOIN = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])|(?<=[A-Z]{2})(?=[A-Z][a-z]{3})")
# The parts of a camelCase name: "BetaAPIKeyCreatedBy" -> Beta, API, Key, Created, By.
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
_VOWEL = re.compile(r"[aeiouyAEIOUY]")
_KEY_CHARACTERS = re.compile(r"[A-Za-z0-9_~!#$%&*+@-]+")


def _letters_drawn_at_random(token: str, *, named: bool = False, vowelless: int = 2) -> bool:
    """Letters a generator drew, the case switching three times or more, with
    six consonants in a row ("CV#UxeZfkqjr9F9x", "uhfWLnMRcx"). Where a
    password or key is ``named`` already, also two parts of mixed or lower
    case with no vowel ("GtrXkPlwQz": Gtr, Xk, Plw, Qz). A name is made of
    syllables joined in camelCase, acronyms whole ("XMLHttpRequest": one such
    part, Http; "phpMyAdmin", "KeePassXC", "BetaAPIKeyCreatedBy": none)."""
    token = token.rstrip(".,;:!?)]}")
    letters = re.sub(r"[^A-Za-z]", "", token)
    if sum(a.isupper() != b.isupper() for a, b in zip(letters, letters[1:])) < 3:
        return False
    if _RANDOM_LETTERS.search(_CAMEL_JOIN.sub(" ", token)):
        return True
    if not named or not _KEY_CHARACTERS.fullmatch(token):  # brackets and dots are code: "SequenceNotStr[str]"
        return False
    parts = _CAMEL_PART.findall(token)
    return sum(len(part) >= 2 and not part.isupper() and not _VOWEL.search(part) for part in parts) >= vowelless


def _generated_password(token: str) -> bool:
    """What a password generator makes and nothing else: a token only a
    password looks like whose letters are drawn at random, "CV#UxeZfkqjr9F9x"."""
    return _letters_drawn_at_random(token) and _password_shaped(token)


# The recipe people follow for a password they must remember: a word, a
# symbol, a word, a number ("Pitanga%Farol81", "Tamar!Golan66"). Nothing
# else is written so: no line of the 1.5 million of code and docs in this
# project's dependencies has one ("=" is left out: keyword arguments,
# "category=Deprecated20"; and "_": identifiers and gamer tags).
# The same recipe in its other orders, after a capitalised word: a number
# then a symbol then letters ("Fieldwork25#lhm"), a symbol then a number
# ("Girasole#2024pz").
_WORD_SYMBOL_WORD_NUMBER = re.compile(
    r"[A-Za-z]{3,}[!#$%^&*+?~@]{1,2}[A-Za-z]{3,}\d{1,6}"
    # ("+" and "@" join names there: "Node18+Vite", "Release2@host"; "%" and
    # "~" with a hex digit encode a character: "~2Ffoo~2Fbar"; a Fortran type
    # is a word, "*" and a size: "Integer*1")
    r"|(?<![A-Za-z0-9])[A-Z][a-z]{2,}(?:\d{1,6}[!#$^&*?~]{1,2}[A-Za-z]{2,}|[!#$^&?~]{1,2}\d{1,6}[a-z]{1,6}(?![A-Za-z0-9]))")


def _generated_password_anywhere(plain: str) -> bool:
    """A password a generator made, or one made by the word-symbol-word-number
    recipe, wherever it stands: no context is needed for either."""
    plain = _PUBLIC_BLOB.sub(" ", _URL.sub(" ", plain))
    return any(_generated_password(token) or (_password_shaped(token) and _WORD_SYMBOL_WORD_NUMBER.search(token))
               for token in (m.group() for m in _password_candidates(plain)))


def _names_a_password(sentence: str) -> bool:
    "A password word anywhere in the sentence, not inside a longer Latin word."
    folded = sentence.casefold()
    return any(not _inside_latin_word(folded, *word.span()) for word in _SECRET_WORD.finditer(folded))


def _password_beside_word(plain: str) -> bool:
    """A token only a password looks like in a sentence with a password
    word, before or after it ("Galata#Kulesi1348 şifresiyle giriyorum"),
    whatever the grammar between them."""
    plain = _PUBLIC_BLOB.sub(" ", _URL.sub(" ", plain))
    # or letters alone, if drawn at random: "mot de passe ... est uhfWLnMRcx ;"
    return any(_names_a_password(sentence) and any(_password_shaped(m.group()) or _letters_drawn_at_random(m.group(), named=True)
                                                   for m in _password_candidates(sentence))
               for sentence in _SENTENCE_END.split(plain))


def _password_candidates(sentence: str):
    "Bare tokens, and whole space-delimited runs that hold no e-mail address ('x@y.com'.The)."
    yield from _BARE_TOKEN.finditer(sentence)
    yield from (m for m in _SPACED_TOKEN.finditer(sentence) if not _EMAIL.search(m.group()))


def _login_secret(plain: str) -> bool:
    """A sentence about logging in that holds a password: after a spaced
    slash ("admin / Kx9!mPq2vL") or anywhere as a token only a password
    looks like ("signs into the router as root with Q7!vxP2mLk"). Links are
    set aside first: their paths and queries are not passwords."""
    for sentence in _SENTENCE_END.split(_URL.sub(" ", plain)):
        if _login_pair(sentence) or _drawn_password_beside_what_it_opens(sentence):
            return True
        if not _LOGIN_CONTEXT.search(sentence):
            continue
        if any(_secret_value(m.group(1)) or _JOINED_WORDS.fullmatch(m.group(1).rstrip(".,;")) for m in _LOGIN_PAIR.finditer(sentence)):
            return True
        if any(_password_shaped(m.group()) for m in _BARE_TOKEN.finditer(sentence)) or _typed_value(sentence):
            return True
        # "concert_zone_remember_devote is what unlocks my backup drive": four
        # words, bare; code quotes its names ("service_account_actor", "receive_response_body")
        if any(m.group()[0].isalpha() and _listed_words_joined(m.group(), least=4) for m in _SPACED_TOKEN.finditer(sentence)):
            return True
    return False


# "WordPress for the club site: editor / vgywxd85": what it logs into, a
# colon, then a user name and a password around a spaced slash, closing the
# sentence. The password starts with a letter and holds a digit or a symbol,
# so a choice ("read / write"), a unit ("mono / 128kbps"), a date or a
# version ("py / v3.12") is not one.
# (a gamer's user name may hold "#": "raidlead#2291")
_SERVICE_LOGIN = re.compile(r"[^\W\d][^:\n]{1,60}:\s{1,3}[A-Za-z][\w.@+#-]{1,60}\s/\s([^\W\d][^\s/]{5,79})\s*$")
_VERSION_DIGITS = re.compile(r"\d\.\d")


def _service_login(sentence: str) -> bool:
    match = _SERVICE_LOGIN.search(sentence)
    if not match:
        return False
    value = match.group(1).rstrip(".,;:!?)")
    return (len(value) >= 6 and any(ch.isdigit() or not ch.isalnum() for ch in value)
            and not _VERSION_DIGITS.search(value) and _secret_value(value))


# What one types to unlock or log in ("you type quietRiver_1987 at the login
# screen", "the thing I type to unlock my phone is ..."), in several
# languages: the verb's object, or what the sentence then says it "is".
_TYPING_VERBS = (
    r"type[sd]?|typing|enter(?:s|ed)?|key(?:s|ed)? in|punch(?:es|ed)? in|tipp(?:e|st|t|en)|tap(?:e|ez|é|er)|saisi[rst]?|escrib(?:o|e|es|ir)"
    r"|digit(?:o|a|ar|are)|inserisc[eo]|introduzo|ввожу|вводим|введите|набираю")
_TYPED = re.compile(
    rf"(?i:(?<!\w)(?:{_TYPING_VERBS})\s(?:(?:[^\s]{{1,40}}\s){{0,8}}?(?:is|est|es|è|ist|это)\s|(?:ich|wir|man|du|in|je|on)\s)?)([^\s\"'`]{{8,80}})")


def _typed_value(sentence: str) -> bool:
    """Typed in a sentence about unlocking or logging in: upper case, lower
    case and digits, with a symbol or letters drawn at random; a name and a
    number ("iPhone15", "MyAccount2") are typed too, but are no password."""
    for match in _TYPED.finditer(sentence):
        token = match.group(1).rstrip(".,;:!?)")
        if not (len(token) >= 8 and any(c.isupper() for c in token) and any(c.islower() for c in token)
                and any(c.isdigit() for c in token) and _secret_value(token)):
            continue
        if not token.isalnum() or _drawn_letters(token):
            return True
    return False


def _drawn_letters(token: str) -> bool:
    "Letters, read together, that a generator drew and no name is made of ('sZYoRj*0200gY67', 'pRkeWotUx58')."
    return _letters_drawn_at_random(token, named=True, vowelless=1) or _letters_unlike_a_name(re.sub(r"[^A-Za-z]", "", token))


def _drawn_password_beside_what_it_opens(sentence: str) -> bool:
    return bool(_OPENED_BY_PASSWORD.search(sentence)) and any(
        _password_shaped(m.group()) and _drawn_letters(m.group()) for m in _BARE_TOKEN.finditer(sentence))


def _login_pair(sentence: str) -> bool:
    "An e-mail address or a user name, then its password: a login of itself, whatever the sentence says."
    if _service_login(sentence):
        return True
    # "j.okafor@acme.example / Quill168!"
    if any(_EMAIL.search(m.group()) and _secret_value(m.group(m.lastindex)) for m in _EMAIL_PAIR.finditer(sentence)):
        return True
    if any(_secret_value(m.group(1)) or _listed_words_joined(m.group(1)) for m in _HANDLE_PAIR.finditer(sentence)):
        return True
    if any(_password_shaped(m.group(1)) for m in _SHORT_WORD_VALUE.finditer(sentence)):
        return True
    return any(_secret_value(m.group(1)) for m in _USER_PASS.finditer(sentence))


# A command line (a lowercase program name first, maybe after a prompt),
# and in it a link or a user@host, then up to two arguments: where a client
# takes the user and the password for it ("mc alias set backup
# https://s3.example backupadmin Granite!Moth-2024").
_COMMAND_LINE = re.compile(r"^\s{0,4}(?:[$#>]\s{1,3})?[a-z][\w.-]{0,30}\s\S", re.MULTILINE)
_UNC_PATH = re.compile(r"\\\\[\w.-]{1,63}\\\S{0,200}")  # net use Z: \\fs01\share Pw /user:...
_AFTER_HOST = re.compile(r"(?:\x00|[^\s@]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,5})[\s,]{1,3}(?:(\S{1,80})\s{1,3})?(\S{8,80})")


def _password_beside_host(plain: str) -> bool:
    "A token only a password looks like among the arguments right after a link or a user@host, on a command line."
    if not _COMMAND_LINE.search(plain):
        return False
    plain = _UNC_PATH.sub("\x00", _URL.sub("\x00", plain))
    return any(_password_shaped(token) for match in _AFTER_HOST.finditer(plain)
               for token in match.groups() if token)


def _assigned_secret(plain: str) -> bool:
    plain = _without_references(plain)
    for match in _ASSIGNED.finditer(plain):
        value = match.group(1)
        if _secret_value(value, named=True) or (len(value) >= 16 and _entropy(value) > 3.5 and not _REFERENCE.search(value)):
            return True
    if _login_secret(plain):
        return True
    for match in _CURL_USER.finditer(plain):
        user, password = match.groups()
        if _REFERENCE.search(user) or password[-1:] in ">}]":
            continue  # "<user:password>", "{user}:{pass}": a placeholder pair
        if not _REFERENCE.search(password) and password.casefold() not in ("pass", "password", "passwd", "token", "test", "secret", "yyy"):
            return True
    return False


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return total % 10 == 0


# Issuer (IIN) ranges of the card networks and the lengths they issue:
# (first, last, digits of the prefix, lengths). Visa, Mastercard, Amex,
# Discover, JCB, Diners; UnionPay (62, 81); RuPay (60, 65, 81, 82, 508);
# Mir (2200-2204); Troy (9792); Elo, Verve and Maestro (50, 56-58, 63, 67);
# the national schemes UzCard (8600), Humo (9860), Belkart (9112), Napas
# (9704), ArCa (9051) and PayPak (2205).
_CARD_RANGES = (
    (4, 4, 1, (13, 16, 19)),
    (51, 55, 2, (16,)), (2221, 2720, 4, (16,)),
    (34, 34, 2, (15,)), (37, 37, 2, (15,)),
    (60, 60, 2, range(16, 20)), (644, 649, 3, range(16, 20)), (65, 65, 2, range(16, 20)),
    (3528, 3589, 4, range(16, 20)),
    (300, 305, 3, range(14, 20)), (36, 36, 2, range(14, 20)), (38, 39, 2, range(14, 20)),
    (62, 62, 2, range(16, 20)), (81, 82, 2, range(16, 20)),
    (2200, 2204, 4, range(16, 20)),
    (9792, 9792, 4, (16,)),
    (8600, 8600, 4, (16,)), (9860, 9860, 4, (16,)), (9112, 9112, 4, (16,)),
    (9704, 9704, 4, (16, 19)), (9051, 9051, 4, (16,)), (2205, 2205, 4, (16,)),
    (50, 50, 2, range(12, 20)), (56, 58, 2, range(12, 20)), (63, 63, 2, range(12, 20)), (67, 67, 2, range(12, 20)),
)


def _card_brand_ok(digits: str) -> bool:
    "The issuer prefix and length of a real payment card."
    return any(first <= int(digits[:width]) <= last and len(digits) in lengths
               for first, last, width, lengths in _CARD_RANGES)


def _iban_ok(candidate: str) -> bool:
    """Mod-97 valid; a short last group after a space may be the next word
    ("AT72 ... bei", "SK25... v") rather than the IBAN's end, and so may
    the groups of letters alone before it, words of four letters read as
    groups ("BE07 8482 3181 4430 when you ...", upper-cased)."""
    while not _iban_checksum(candidate):
        head, _, tail = candidate.rpartition(" ")
        if not head or not (len(tail) <= 3 or tail.isalpha()):
            return False
        candidate = head
    return True


def _iban_checksum(candidate: str) -> bool:
    iban = candidate.replace(" ", "")
    if not 15 <= len(iban) <= 34:
        return False
    rearranged = iban[4:] + iban[:4]
    try:
        number = int("".join(str(int(ch, 36)) for ch in rearranged))
    except ValueError:
        return False
    return number % 97 == 1


def _entropy(text: str) -> float:
    counts = {ch: text.count(ch) for ch in set(text)}
    return -sum(c / len(text) * math.log2(c / len(text)) for c in counts.values())


def _drawn_key(value: str) -> bool:
    "Upper case, lower case and digits, with the case switching as only a draw does."
    return (any(c.isdigit() for c in value) and any(c.isupper() for c in value) and any(c.islower() for c in value)
            and _entropy(value) > 3.5 and _letters_drawn_at_random(value, named=True))


def _looks_random(token: str) -> bool:
    """A long token mixing upper case, lower case and digits with high
    entropy and frequent switches between them: likely a key. Hex alone never
    counts (hashes and SHAs are hex), nor do words joined by dashes or
    slashes ("feature/JIRA-1234-short-description")."""
    if re.fullmatch(r"[0-9a-fA-F_\-]{32,}", token):
        return False
    has_digit = any(c.isdigit() for c in token)
    has_upper = any(c.isupper() for c in token)
    has_lower = any(c.islower() for c in token)
    if not (has_digit and has_upper and has_lower) or _entropy(token) <= 4.0:
        return False
    kinds = ["d" if c.isdigit() else "u" if c.isupper() else "l" if c.islower() else "o" for c in token]
    switches = sum(a != b for a, b in zip(kinds, kinds[1:]))
    return switches / (len(token) - 1) > 0.35


def _not_a_prose_value(value: str) -> bool:
    "A word that follows 'password is' without being one, or a placeholder or hash."
    return (len(value) < 3 or value in _NOT_A_VALUE or value.casefold() in _NOT_A_SECRET_VALUE
            or bool(_PATH_VALUE.fullmatch(value))
            or _is_reference(value) or bool(_PASSWORD_HASH.match(value)) or _names_a_secret(value))


# A value cut short to its prefix: "sk-...", "ghp_…".
_ELIDED = re.compile(r"[^\s.…]{1,8}(?:\.{3}|…)")


# A text about bad passwords in general: "the worst password", "the most
# common passwords", "das häufigste Passwort".
_BAD_PASSWORDS = re.compile(
    r"\b(?:worst|weakest|most (?:common|used|popular)|commonest|common|weak|bad|terrible|guessable|famous|classic"
    r"|schlechteste\w?|häufigste\w?|schwächste\w?|pire|plus (?:courant|utilisé)|peor|más (?:común|usada)|peggior\w?|più (?:comune|usata)"
    r"|najgorsz\w{1,2}|najczęstsz\w{1,2}|slechtste|meest gebruikte)\s(?:[^\s.!?]{1,20}\s){0,2}(?:passwords?|passw[oö]rt\w{0,3}|mot de passe|contraseñas?|wachtwoord\w{0,2}|hasł\w{1,3})\b")


def _word_and_number(match: re.Match, folded: str) -> bool:
    """The secret word with a number glued to it, in a text about bad
    passwords ("'password123' is the worst password"): the commonest
    password there is, named as an example. A short word keeps its number
    ("pin1234"), and so does one's own ("my password is password123")."""
    value, word = match.group(2), folded[match.start():match.start(2)]
    return (bool(value) and value.strip("\"'`.,;:!?)»”」’。，").isdigit() and len(word) >= 5 and word.isalpha()
            and bool(_BAD_PASSWORDS.search(folded)))


def _prose_match_is_secret(pattern: re.Pattern, match: re.Match, folded: str) -> bool:
    raw = next((g for g in match.groups() if g), "")
    if _ELIDED.fullmatch(raw.rstrip(",;:!?)»”」’。，")):
        return False
    value = raw.strip(".,;:!?)»”」’。，")
    if _not_a_prose_value(value):
        return False
    if pattern is _PROSE_PATTERNS[1] and _word_and_number(match, folded):
        return False
    quoted = match.group(0).rstrip()[-1:] in "\"'`»”」’"
    codelike = bool(re.search(r"\d|[!@#$%^&*_+=?~/\\|<>\[\]{}]", value)) or not value.isalpha()
    if quoted:
        return True
    if pattern in (_PROSE_PATTERNS[1], _PROSE_PATTERNS[4]):
        return codelike and bool(re.search(r"\d", value))
    if codelike:
        return True
    if pattern is _PROSE_PATTERNS[0]:
        # A bare word: a password only when it ends the sentence ("the wifi
        # password is bluefrog."), not "is weak", nor a word of state the
        # sentence goes on from ("is gelekt, dus ..."), in any language.
        rest = folded[match.end():match.end() + 2].strip()
        return not rest or rest[0] in ".!?)\"'"
    return False


def _prose_secret(folded: str) -> bool:
    return any(_prose_match_is_secret(pattern, match, folded)
               for pattern in _PROSE_PATTERNS for match in pattern.finditer(folded))


def _token_reason(plain: str) -> str | None:
    "Provider tokens, keys in config lines and prose, TOTP seeds, connection strings with a password."
    if any(not _placeholder_token(m.group()) for m in _TOKEN.finditer(plain)):
        return "an API token or key"
    # A public key's letters and symbols are not a password after "ssh" or "key =".
    if _assigned_secret(_PUBLIC_KEY_RE.sub(" ", plain)):
        return "an API token or key"
    if _connection_password(plain):
        return "a connection string with a password"
    if any(_is_base32_seed(m.group(1), plain[m.end():m.end() + 1]) for m in _TOTP_SEED.finditer(plain)):
        return "a one-time-password seed"
    if any(_drawn_key(m.group(1)) for m in _NAMED_SECRET_VALUE.finditer(plain)):
        return "an API token or key"
    if any(_long_key(m.group(1)) for m in _NAMED_KEY_VALUE.finditer(plain)) or any(
            _session_value(m.group(1)) for m in _SESSION_ID.finditer(plain)):
        return "an API token or key"
    if _password_beside_host(plain):
        return "a connection string with a password"
    return None


def _connection_password(plain: str) -> bool:
    "A password in a connection string, an Oracle or slash login, or a client's command line; not a template's."
    template = bool(_TEMPLATE_WORDS.search(plain))
    return (any(not _placeholder_password(m.group(2), template) for m in _CONNECTION.finditer(plain))
            or any(not _placeholder_password(m.group(2), template) for m in _ORACLE_LOGIN.finditer(plain))
            or any(not _placeholder_password(m.group(1), template) for m in _SLASH_LOGIN.finditer(plain))
            or any(_cli_password(m.group(2), m.group(1), template) for m in _CLI_PASSWORD.finditer(plain)))


# A text that presents what it holds as a template or an example.
_TEMPLATE_WORDS = re.compile(r"(?i:\b(?:template|example|sample|placeholder|boilerplate)s?\b|\.env\.\w{0,10}example|e\.g\.)")


def _placeholder_password(password: str, template: bool) -> bool:
    """The password of a template connection string: "<pw>", "***", or, in
    a text that calls it a template or example, the secret's own word
    (``postgres://user:password@localhost`` in a ``.env.example``)."""
    if _PLACEHOLDER.match(password):
        return True
    return template and bool(_names_a_secret(password) or _PLACEHOLDER_WORD.search(password)
                             or password.casefold() in ("pass", "pw", "pwd", "secret"))


def _cli_password(value: str, separator: str, template: bool) -> bool:
    "A password on a client's command line: has a letter, is no placeholder or reference."
    spaced_bare = separator[:1].isspace() and not separator.strip()
    return (any(c.isalpha() for c in value) and not (spaced_bare and not any(c.isdigit() for c in value))
            and not _REFERENCE.search(value) and not _placeholder_password(value, template))


# Four letters no word is written with: no vowel, "q" without "u", a rare letter before a consonant.
_UNLIKE_A_WORD = re.compile(r"^[^aeiouy]{4}$|q(?!u)|[jqvxz][^aeiouy\s]")


def _is_base32_seed(value: str, after: str = "") -> bool:
    """A TOTP seed: base32 letters and digits (2-7), both, at least 16; or
    letters alone as an authenticator shows them for manual entry (see
    ``_letters_seed``), closing the clause."""
    joined = re.sub(r"\s", "", value)
    if len(joined) < 16 or not any(c.isalpha() for c in joined):
        return False
    if any(c.isdigit() for c in joined):
        return True
    return (not after or after in ".,;!?)\n") and _letters_seed(value.split())


def _letters_seed(groups: list[str]) -> bool:
    """Groups of four letters of one case ("vbqr gqki euty saef"), two at
    least unlike a word ("vbqr": no vowel; "gqki": no "u" after "q") and
    none a word of BIP-39's English list ("your data safe" is prose)."""
    joined = "".join(groups)
    words = _passphrase_words()
    return (len(groups) >= 4 and all(len(group) == 4 for group in groups) and (joined.isupper() or joined.islower())
            and sum(bool(_UNLIKE_A_WORD.search(group.lower())) for group in groups) >= 2
            and not any(group.lower() in words for group in groups))


# Spans that are never a secret's value, blanked before the prose checks:
# placeholders ("<password>", "{SumoAccessKey}", "${DB_PASSWORD}") and public
# blobs (crypt hashes, public keys, UUIDs), whose letters and digits would
# otherwise read as the value after a password word.
_PLACEHOLDER_SPAN = re.compile(r"<[^<>\s]{1,60}>|\$?\{[^{}\s]{1,60}\}")
# An indirect reference after an assignment: the value is read from
# somewhere else (``password = request.json_body['pw']``, ``token =
# get_token()``), after detect-secrets' ``is_indirect_reference``.
_INDIRECT_REFERENCE = re.compile(r"(?<=[=:])(\s{0,3})[\w.-]{1,80}(?:\[[^\[\]\n]{0,80}\]|\([^()\n]{0,80}\))")


def _without_references(text: str) -> str:
    return _INDIRECT_REFERENCE.sub(r"\1<>", text)


# "the key is plum-tree-cider-88", "koden til vores Netflix-konto er
# Havfrue_Odense31": a key or code is a password where its sentence names
# what it opens (a network, a device, an account), and is not one of the
# codes that open nothing (area, zip, error, promo, QR, source ...).
_KEY_WORD = re.compile(
    r"(?<![\w-])(?:key|code|schlüssel|clé|clave|chiave|sleutel|nøgle\w{0,3}|nøkkel\w{0,3}|nyckel\w{0,3}|klucz\w{0,2}|ключ\w{0,2}"
    r"|kod\w{0,2}|kode\w{0,2}|koodi\w{0,3}|código|codice|kód\w{0,2}|κλειδί|код\w{0,2})(?![\w-])"
    r"|(?<![\w-])[הלבמשו]?קוד(?![\w-])")  # Hebrew prefixes "the", "to" ... to the word
_OPENED = re.compile(
    r"(?<![\w])(?:wi-?fi|wlan|wireless|router|hotspot|network|ssid|netzwerk|réseau|netwerk|rete|rede|nettverk|netværk|nätverk|verkko|sieć|сеть|сети"
    r"|laptop|computer|pc|phone|iphone|ipad|tablet|handy|telefon\w{0,2}|account\w{0,2}|konto\w{0,2}|compte|cuenta|conta|conto|tili\w{0,3}|fiók\w{0,3}"
    r"|аккаунт\w{0,2}|netflix|spotify|disney\+?|hbo|prime video|streaming"
    r"|app|apps|application|aplicación|applicazione|aplicativo|aplikacj\w{1,2}|приложени\w{1,2}|uygulama\w{0,4})(?![\w])"
    r"|[\w-]{1,20}-(?:konto|account|app)\b|(?<![\w])[הלבמשו]{0,2}אפליקצי\w{0,3}|アプリ|앱|应用")
_NOT_A_KEY = re.compile(
    r"(?:area|zip|postal|post|error|status|source|promo|discount|coupon|voucher|gift|qr|bar|country|product|dress|tracking|booking|order|reference"
    r"|confirmation|invite|invitation|referral|colou?r|exit|language|region|public|keyboard|model|serial|licen[cs]e)(?:[\s-]\w{1,10})?[\s-]?$")


def _keyed_value(folded: str) -> bool:
    for sentence in _SENTENCE_END.split(folded):
        if not _OPENED.search(sentence):
            continue
        for word in _KEY_WORD.finditer(sentence):
            if _NOT_A_KEY.search(sentence[max(0, word.start() - 14):word.start()]):
                continue
            # a router's key may be 16 to 20 digits (a FRITZ!Box's is 20)
            if _window_has_value(_clause_after(sentence, word.end()), network_key=True):
                return True
    return False


# A password of letters alone ("HrpaxyXbdt", "QkyAFpNQodi") right after a
# password word (and its link, or only a space), closing the clause or
# before a Japanese or Korean copula ("パスワードは ESYqOQLJjn です"). Folding
# lowered its case, so the value is read again as written: there one part of
# it with no vowel is enough ("Xbdt"), the place already says it is a password.
# (Two such runs may be joined by "_": "vAxiFATE_mGOZy".)
# (A Chinese, Japanese or Korean word may be glued to the Latin name of what
# it opens: "Wi-Fi密码是 ...", "Gmailのパスワードは ...".)
_LETTERS_AFTER_WORD = re.compile(
    rf"(?:(?<![a-z])|(?=[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]))(?:{_SECRET_WORDS})[^.!?;\n。:]{{0,40}}?(?:{_LINK}|\s)([a-z]{{8,40}}|(?=[a-z_]{{8}})[a-z]{{2,30}}_[a-z]{{2,30}})(?:\s?(?:です|でした|だ|입니다|이에요|예요))?\s?(?:[.!?。,;)]|$)")


# Or after a key's word where the text names a network or device ("Guest
# network: Shed-Guest, key KQMwjztWWcnM").
_LETTERS_AFTER_KEY = re.compile(rf"(?:{_KEY_WORD.pattern})\s?:?\s([a-z]{{8,40}})(?:\s?[.!?,;)]|$)")


def _letters_after_word(folded: str, plain: str) -> bool:
    keyed = _LETTERS_AFTER_KEY.finditer(folded) if _OPENED.search(folded) else ()
    for match in itertools.chain(_LETTERS_AFTER_WORD.finditer(folded), keyed):
        written = re.search(rf"(?<![A-Za-z]){match.group(1)}(?![A-Za-z])", plain, re.IGNORECASE)
        if written and (_letters_drawn_at_random(written.group(), named=True, vowelless=1)
                        or any(_letters_unlike_a_name(part) for part in written.group().split("_"))):
            return True
    return False


_LOWER_VOWEL = re.compile(r"[aeiouy]")
# A short word that opens with a vowel and has none after it: "In", "Elm", "Apps", "Arch".
_VOWEL_WORD = re.compile(r"[aeiou][lmnrw]?[bcdfghklmnprstw]{0,2}s?")


def _letters_unlike_a_name(token: str) -> bool:
    """Letters of both cases that no name is made of, after a password word:
    a name joins words (each with a vowel after its first letter: "Kee",
    "Pass"; or a short one opening with one: "In", "Elm") and acronyms whole
    ("XC", "URLs"), maybe after a short lower-case prefix ("iCloud",
    "mRemote"). A part that is neither, "Tm" in "HJKLPTmR", "Hm" in
    "BYARYRKHmI", "Umq" in "lTCxoebUmq", was drawn by a generator."""
    if not token.isalpha() or sum(a.isupper() != b.isupper() for a, b in zip(token, token[1:])) < 2:
        return False
    parts = _CAMEL_PART.findall(token)
    if len(parts) > 1 and parts[0].islower() and len(parts[0]) <= 3 and _LOWER_VOWEL.search(parts[1][1:]):
        parts = parts[1:]  # "mRemoteNG", "phpMyAdmin": a prefix before a word
    return any(not _name_part(part, parts[index - 1] if index else "") for index, part in enumerate(parts))


def _name_part(part: str, before: str) -> bool:
    "A word, an acronym, or an acronym's plural."
    if part.isupper() or _LOWER_VOWEL.search(part[1:]):
        return True
    return bool(_VOWEL_WORD.fullmatch(part.lower())) or (part[1:] == "s" and before.isupper())


# Said of a door, lock or alarm (the caller checks): what opens it ("opens
# with 0-4-9-2"), or what to key in ("alarm: type 7391 on the panel").
_OPENS_WITH = re.compile(
    r"\b(?:(?:unlock|disarm|open)\w{0,3}\s(?:it\s|only\s)?with|geht\smit|(?:type|enter|punch|key|tap)(?:\sin)?"
    # "the keypad takes 1991"
    r"|(?:keypad|pad|panel|lock)\s(?:takes|accepts|wants)"
    # "le boîtier à côté de la porte demande 2814b", "la tastiera chiede 4411"
    r"|(?:keypad|boîtier|clavier|digicode|teclado|tastiera|tastierino|tastenfeld|ziffernblock)(?:\s[^\s\d]{1,20}){0,8}?\s"
    r"(?:asks for|demande|exige|accepte|pide|acepta|chiede|accetta|verlangt|akzeptiert)"
    # a verb that switches it off or opens it, then "with" a number, in several languages:
    # "die Alarmanlage schalte ich mit 4048 aus", "je désactive l'alarme avec 4048"
    # (or sets it: "alarm: set with 1271 then press OFF")
    r"|(?:(?:disarm|deactivat|switch|turn|schalt|deaktivier|entsperr|öffne|désactiv|ouvr|desactiv|disattiv|ontgrendel|schakel)\w{0,4}|(?:abr|apr)(?:o|e|i|ir|ire)\b"
    r"|(?:set|arm|activate|aktiviere|active|activa|attiva)(?:s|d|ed|ting)?\b)"
    r"(?:\s[^\s\d]{1,20}){0,5}?\s(?:with|mit|avec|con|com|met))\s(?:the\s|dem\s|le\s|el\s)?(?:code\s)?"
    r"[#*]?\d(?:[- ]?\d){3,7}[#*]?[a-z]?(?![\w-])")


# The same, where the language names the kind after the code ("kod błędu",
# "код ошибки", "code d'erreur", "kod pocztowy").
_NOT_A_CODE_AFTER = re.compile(
    r"\s(?:d'|de |di |del )?(?:error|erreur|errore|błęd|ошибк|помилк|chyb|hib|fehler|fout|fel|virhe|hata|pocztow|postal|почтов|поштов"
    r"|promo|rabat|скидк|zip|area|qr|product|produkt|товар|заказ|zamówien|order|booking|reserv|rezerw|брон|tracking|przesył|model|serial)")


def _code_value(folded: str) -> bool:
    "A code and its value, not one of the codes that open nothing (zip, area, error ...)."
    if _OPENS_WITH.search(folded):
        return True
    return any(not _NOT_A_KEY.search(folded[max(0, m.start() - 14):m.start()]) and not _NOT_A_CODE_AFTER.search(m.group())
               for m in _CODE_VALUE.finditer(folded))


# A box or pad that holds or asks for nothing but a code, then a colon and
# the number ("Keysafe by the back door: 5975"): the number is its code.
_CODE_BOX_NUMBER = re.compile(
    r"(?<![\w-])(?:key ?safe|key ?box|lock ?box|keypad|padlock|combination lock|digicode|schlüsseltresor|schlüsselkasten|schlüsselkästchen"
    r"|boîte à clés|sleutelkast\w{0,2}|sleutelkluis|kluisje|nyckelskåp|nøkkelboks|домофон\w{0,2}|interphone|intercom|citofono|kłódk\w{0,2}|candado|lucchetto)(?![\w-])"
    r"[^\n:.]{0,40}?:\s?[#*]?\d{4,8}[#*]?(?![\w-]|[.,:/]\d)")
# A burglar alarm named, then a colon and its code ("Alarm at the clinic:
# 9846", "Alarmanlage Büro: 41773"), in several languages: a number that is
# no clock time ("alarm: 0630"), year or measure ("alarm: 3000 hz").
_ALARM_NUMBER = re.compile(
    r"(?<![\w-])(?:alarm|alarme|alarma|allarme|alarmanlage|larm|hälytin|alarmsystem|alarmsysteem|сигнализаци\w{1,2})(?![\w-])"
    r"[^\n:.]{0,40}?:\s?(?!(?:19|20)\d\d(?!\d))(\d{4,8})(?![\w-]|[.,:/]\d|\s?(?:hz|khz|db|mah|ms|s|sec|seconds?|min|minutes?|v|w)\b)")


def _alarm_number(folded: str) -> bool:
    return any(not (len(code) == 4 and int(code[:2]) < 24 and int(code[2:]) < 60)
               for code in (m.group(1) for m in _ALARM_NUMBER.finditer(folded)))


# Japanese, Chinese and Korean name a door's or safe's code by what it
# opens, then the word for its number or code ("オートロックの番号は 3027",
# "门禁密码是 4821", "현관 비밀번호는 1234"): there are no spaces to find words by.
_CJK_LOCK_CODE = re.compile(
    r"(?:(?:オートロック|キーボックス|南京錠|金庫|ダイヤル錠)の?(?:番号|暗証番号|コード|パスワード)"
    r"|(?:玄関|ドア|门禁|門禁|大门|大門|单元门|單元門|保险箱|保險箱|保险柜|保險櫃|密码锁|密碼鎖|현관|도어락|금고|공동현관|대문)[^\n。]{0,8}?(?:暗証番号|コード|密码|密碼|비밀번호|코드))"
    r"\s?(?:は|が|是|为|為|는|은|:|：)?\s?(?!(?:19|20)\d\d(?!\d))\d{4,8}(?!\d)")
# "the code to type is 21931", "il codice da digitare è ...", "le code à
# taper est ...": a code one keys in, in several languages, where the text
# names no lock ("carta della Coldiretti": a card's PIN).
_CODE_TO_TYPE = re.compile(
    r"(?<![a-z])(?:code|codice|código|codigo|kod|kode|koodi|kód|код|pin|пин|geheimzahl|zahlencode)\s(?:(?:to|da|à|a|zum|que|you|i|we|hay que)\s){0,2}"
    r"(?:type|enter|key in|punch in|dial|digitare|inserire|comporre|taper|composer|saisir|teclear|marcar|introducir|ingresar|digitar|eingeben|einzugeben|eintippen|einzutippen|набрать|ввести|ввода)"
    r"(?:\s(?:in|at|on)\s[^\s\d]{1,20})?(?:\s?[:=]\s?|\s(?:is|est|es|è|é|ist|lautet|är|er|on|это)\s)"
    r"(?!(?:19|20)\d\d(?!\d))[#*]?\d{4,8}[#*]?(?![\w-]|[.,:/]\d)")


def _code_to_type(folded: str) -> bool:
    return any(not _NOT_A_KEY.search(folded[max(0, m.start() - 14):m.start()]) for m in _CODE_TO_TYPE.finditer(folded))


def _password_in_prose(folded: str) -> bool:
    folded = _PUBLIC_BLOB.sub(" ", _PLACEHOLDER_SPAN.sub("<>", _without_references(folded)))
    return bool(
        _prose_secret(folded) or _near_value(folded) or _keyed_value(folded) or _SEED_PHRASE.search(folded) or _RECOVERY_CODES.search(folded) or _recovery_code_list(folded)
        or (_OPENS_SOMETHING.search(folded) and _code_value(folded))
        or _CODE_BOX_NUMBER.search(folded) or _CJK_LOCK_CODE.search(folded) or _code_to_type(folded) or _alarm_number(folded)
    )


# A card number named as a provider's test card ("Stripe's documented test
# number") is public: payment providers publish them for sandboxes.
_TEST_CARD = re.compile(r"(?i:\b(?:test|sandbox|documented|dummy|sample)\s(?:\w+\s)?(?:card|number|credit card|visa|mastercard|amex)s?\b)")


# A number named as a barcode or book number, and valid as one, is a product's.
_PRODUCT_CODE = re.compile(
    r"(?i:\b(?:bar ?codes?|ean(?:-?1[34])?|gtin|upc|isbn(?:-?1[03])?|strichcode|code-barres?|codes? barres?|código de barras|codice a barre"
    r"|streepjescode|kod kreskowy|barkod|mã vạch)\b|штрих-?код|条形码|條碼|条码|バーコード|바코드)")


# A card number named as one ("クレジットカード番号は ...", "numéro de carte"):
# then the Luhn check alone says it is one, whatever issuer it claims.
_CARD_NUMBER_WORDS = re.compile(
    r"(?i:card number|card no\b|kartennummer|numéro de (?:la |ma )?carte|número de (?:la |mi )?(?:tarjeta|cartão)|numero (?:della |di )?carta"
    r"|kaartnummer|kortnummer|numer karty|номер (?:моей )?карты|kart numarası|số thẻ|nomor kartu)|カード番号|卡号|卡號|카드 ?번호|رقم البطاقة|מספר כרטיס")


# A number named as a parcel's ("Sendungsnummer DHL: 638381260006"): a
# tracking number may pass a card's prefix and Luhn check by chance.
_TRACKING_NUMBER = re.compile(
    r"(?i:tracking|sendungs(?:nummer|nr)|trackingnummer|paketnummer|numéro de suivi|n° de suivi|número de seguimiento|número de rastreio|rastreamento"
    r"|codice di tracciamento|numero di spedizione|numer przesyłki|numer śledzenia|трек-номер|номер отправления|takip numarası|kargo takip|zendingnummer"
    r"|track ?& ?trace|kollinummer|sändningsnummer|forsendelsesnummer|seurantakoodi|seurantanumero|lähetystunnus|nyomkövetési szám|číslo zásilky)"
    r"|追踪号|追蹤號|追跡番号|运单号|快递单号|운송장 ?번호")


def _card_number(plain: str) -> bool:
    if _TEST_CARD.search(plain):
        return False
    product = bool(_PRODUCT_CODE.search(plain))
    named = bool(_CARD_NUMBER_WORDS.search(plain))
    for match in _DIGIT_RUN.finditer(plain):
        if not named and _TRACKING_NUMBER.search(plain, max(0, match.start() - 30), match.start()):
            continue
        for digits in _card_candidates(match.group()):
            if (named or _card_brand_ok(digits)) and _luhn_ok(digits) and not _published_sample(digits, plain):
                if product and _valid_id(digits, ("ean", "isbn")):
                    continue
                return True
    return False


def _card_candidates(run: str) -> list[str]:
    """The run's digits, and the digits up to each space or dash in it: a
    card written with its expiry after it ("4623 7267 6957 0457 04/27")
    runs on into the month's digits."""
    ends = [m.start() for m in re.finditer(r"[ -]", run)] + [len(run)]
    candidates = (re.sub(r"\D", "", run[:end]) for end in reversed(ends))
    return [digits for digits in candidates if 12 <= len(digits) <= 19]


# A bank account as a country without IBANs writes it: a US routing number
# (its own checksum) or a UK sort code, then an account number; a CLABE; an
# agência and conta; an IFSC code beside an account number; a Japanese deposit.
_ROUTING_AND_ACCOUNT = re.compile(
    r"(?i:\b(?:routing|aba|rtn)\b(?: (?:number|no\.?|#))?\W{0,3}(\d{9})\b[^\n]{0,30}?\baccount\b(?: (?:number|no\.?|#))?\W{0,3}\d{6,17}\b"
    r"|\bsort code\W{0,3}\d{2}-\d{2}-\d{2}\b[^\n]{0,30}?(?:\baccount\b(?: (?:number|no\.?))?|\bacc(?:t|ount)?\.? ?(?:no\b\.?|number|#)|\ba/c\b(?: no\b\.?)?)\W{0,3}\d{8}\b"
    # Australia's BSB (branch) and the account after it
    r"|\bbsb\b(?: (?:number|no\.?))?\W{0,3}\d{3}-?\d{3}\b[^\n]{0,30}?\baccount\b(?: (?:number|no\.?|#))?\W{0,3}\d{6,10}\b"
    # Mexico's CLABE; Brazil's agência and conta
    r"|\bclabe\b(?:\s\w+){0,3}\W{0,3}\d{18}\b"
    r"|\bag[eê]ncia\W{0,3}\d{3,5}\b[^\n]{0,30}?\bconta(?: corrente| poupança)?\W{0,3}\d{4,12}-?[\dx]\b)"
    # India: an IFSC code beside an account number; Japan: the kind of deposit, then its number
    r"|\b[A-Z]{4}0[A-Z0-9]{6}\b(?=[^\n]{0,60}?\d{9,18})|(?<=\D)\d{9,18}\D[^\n]{0,60}?\b[A-Z]{4}0[A-Z0-9]{6}\b"
    r"|(?:普通預金|当座預金|普通口座|口座番号)\D{0,8}\d{7}(?!\d)")


# A number named as a bank account's ("Kontonummer til lønnen: 4742.40.01644",
# "numéro de compte 30004 00550 0001"): 8 to 20 digits, maybe grouped, right
# after the name, as an id's number is read after its name. (Chinese and
# Japanese glue the name to the bank's: "工商银行卡号".)
_ACCOUNT_NUMBER = re.compile(
    r"(?<![^\W\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])(?i:(?:bank ?account|account) (?:number|no\.?|#)|\bacc(?:t|ount)?\.? (?:no\.?|#)|\ba/c no\b\.?|kontonummer\w{0,2}|kontonr\.?|numéro de compte|n° de compte"
    # the kind of account named for its number ("the checking account is 1134845123", "Girokonto: ...")
    r"|(?:checking|savings|current|cheque|chequing|deposit|salary|joint) account|girokonto|sparkonto|lønnskonto|lönekonto|sparekonto"
    r"|compte (?:courant|chèque|d'épargne|épargne)|cuenta (?:corriente|de ahorros?|nómina)|conto (?:corrente|di risparmio)|conta (?:corrente|poupança)"
    r"|lopende rekening|spaarrekening|betaalrekening|rachun\w{1,3} (?:bieżąc|oszczędnościow|osobist)\w{1,3}|(?:расч[её]тн|текущ|сберегательн)\w{1,3} сч[её]т\w{0,2}"
    r"|número de (?:la |mi )?(?:cuenta|conta)|numero (?:di |del )?conto|rekeningnummer|numer (?:mojego )?konta|номер (?:моего )?сч[её]та|hesap numara\w{0,3}"
    r"|tilinumero\w{0,2}|számlaszám\w{0,3}|číslo účtu|broj računa|αριθμός λογαριασμού|رقم الحساب|מספר (?:ה)?חשבון|계좌 ?번호|银行账号|銀行帳號"
    # a bank card's number, named so (a debit card's number is its account's)
    r"|bank card number|银行卡号|銀行卡號|银行卡卡号)"
    # (a number, not an amount of money or a date: "opened on 2019-05-12")
    r"\D{0,20}?(?<![\d.,/$€£¥-])(?!\d{1,4}([.-])\d{1,2}\1\d{2,4}(?!\d))\d(?:[ .-]?\d){7,19}(?![\w-]|[.,/]\d)")


# A text about a bank: there a routing number and an account after it are
# one, whether the routing number's checksum holds or was mistyped.
_BANK_CONTEXT = re.compile(r"(?i:\b(?:bank\w{0,3}|credit union|checking|savings|direct deposit|wire transfer|ach|payroll)\b)")


def _domestic_account(plain: str) -> bool:
    return (any(match.group(1) is None or _valid_id(match.group(1), ("us.rtn",)) or _BANK_CONTEXT.search(plain)
                for match in _ROUTING_AND_ACCOUNT.finditer(plain))
            or bool(_ACCOUNT_NUMBER.search(plain)))


# National id numbers whose shape is their own (a date, a century sign, a
# check letter, dots and dashes where only that id puts them), checked by
# python-stdnum's validators (date and check digit) wherever they appear:
# (pattern on the upper-cased text, stdnum modules).
_ID_SHAPES = (
    (re.compile(r"\b[XYZ]?\d{7,8}-?[A-Z]\b"), ("es.dni", "es.nie")),
    (re.compile(r"(?<![\d.])\d{3}\.\d{3}\.\d{3}-\d{2}(?!\d)"), ("br.cpf",)),
    (re.compile(r"(?<!\d)\d{17}[\dX](?![\dA-Z])"), ("cn.ric",)),
    (re.compile(r"(?<!\d)[12]\s?\d{2}\s?(?:0[1-9]|1[0-2])\s?(?:\d{2}|2[AB])\s?\d{3}\s?\d{3}\s?\d{2}(?!\d)"), ("fr.nir",)),
    (re.compile(r"\b[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]\b"), ("it.codicefiscale",)),
    (re.compile(r"(?<![\d-])\d{6}[-+A-FU-Y]\d{3}[0-9A-Y](?![\w-])"), ("fi.hetu",)),
    (re.compile(r"(?<![\d-])(?:\d{2})?\d{6}[-+]\d{4}(?![\d-])"), ("se.personnummer", "dk.cpr", "is_.kennitala")),
    (re.compile(r"\b[A-Z]{4}\d{6}[HMX][A-Z]{5}[A-Z\d]\d\b"), ("mx.curp",)),  # letters, birth date, sex, state
    (re.compile(r"(?<![\d.])756\.\d{4}\.\d{4}\.\d{2}(?!\d|\.\d)"), ("ch.ssn",)),
    (re.compile(r"(?<![\d-])\d-\d{4}-\d{5}-\d{2}-\d(?![\d-])"), ("th.pin",)),
    (re.compile(r"(?<![\d-])(?:20|23|24|27)-\d{8}-\d(?![\d-])"), ("ar.cuit",)),  # a person's CUIL/CUIT, not a company's
    (re.compile(r"(?<![\d-])[0-3]\d[01]\d{3}-[0-2]\d{4}(?![\d-])"), ("lv.pvn",)),  # Latvian personas kods
    (re.compile(r"(?<![\d.])\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}(?!\d|\.\d)"), ("be.nn",)),
    (re.compile(r"(?<![\d-])\d{5}-\d{7}-\d(?![\d-])"), ("pk.cnic",)),
    (re.compile(r"(?<![\d-])\d{6}-\d{2}-\d{4}(?![\d-])"), ("my.nric",)),
    (re.compile(r"(?<![\d/])\d{6}/\d{3,4}(?![\d/])"), ("cz.rc", "sk.rc")),
)
# Personal and national identity numbers written as plain digits: one
# python-stdnum module per country, by the length of its number. A run of
# digits is too common a shape to be read alone (order, phone and tracking
# numbers, ISBNs), so it counts only in a text that speaks of identity
# (_ID_CONTEXT) and only when the module's check digits and dates accept it.
# Numbers with no check digit of their own (US SSN, Danish CPR, Cuban NI)
# are left to the rules that read them by name.
_PLAIN_IDS = (
    "at.vnr", "be.nn", "bg.egn", "br.cpf", "ca.sin", "cl.rut", "cz.rc", "de.idnr", "do.cedula", "ec.ci",
    "ee.ik", "fr.nir", "gb.nhs", "gr.amka", "hr.oib", "id.nik", "il.idnr", "in_.aadhaar", "is_.kennitala",
    "jp.in_", "kr.rrn", "lt.asmens", "my.nric", "nl.bsn", "no.fodselsnummer", "pk.cnic", "pl.pesel",
    "ro.cnp", "ru.inn", "se.personnummer", "si.emso", "sk.rc", "th.pin", "tr.tckimlik", "ua.rntrc", "za.idnr",
)
# 9 to 16 digits, maybe grouped: shorter runs are dates and counts.
_PLAIN_NUMBER = re.compile(r"(?<![\w.,/-])\d(?:[ .\-/]?\d){8,15}(?![\w-]|[.,/]\d)")


def _valid_id(value: str, modules: tuple[str, ...]) -> bool:
    "Whether one of python-stdnum's validators (imported on first use) accepts the value."
    import importlib

    return any(importlib.import_module(f"stdnum.{module}").is_valid(value) for module in modules)


def _plain_id(plain: str) -> bool:
    "A run of digits that a country's personal-id check accepts (in a text about identity)."
    return any(_valid_id(re.sub(r"\D", "", m.group()), _PLAIN_IDS) for m in _PLAIN_NUMBER.finditer(plain))


# A passport number mixes letters and digits ("C01X00T47", "PAB123456"):
# after the word for a passport, in many languages; after "passport
# number" also further on, past what it is for ("passport number for the
# visa application: ..."); not a number given as an example of its format.
_PASSPORT_NUMBER = re.compile(
    r"(?:(?i:passport|reisepass\w{0,3}|pass(?:nummer| nr)|pasaporte|passeport|passaporto|paszport\w{0,3}|паспорт\w{0,3}|pasaport\w{0,3}|paspoort\w{0,3}"
    r"|護照|护照|パスポート|여권|جواز السفر|דרכון)[^\n]{0,30}?"
    # the number named as such may be further on
    r"|(?i:passport (?:number|no\b\.?|#)|passnummer|número de pasaporte|numéro de passeport|numero (?:di|del) passaporto|numer paszportu|номер паспорта"
    r"|pasaport numarası|paspoortnummer|護照號碼|护照号码|パスポート番号|여권 ?번호)[^\n]{0,50}?)(?<![\w-])(?=[A-Z]{0,3}\d)(?=(?:[A-Z]{0,9}\d){2})[A-Z]{0,3}\d[A-Z0-9]{5,10}(?![\w-])")


# After an id's name, a code of capitals and digits, two of each at least
# ("Codice fiscale: WTTZNL94H09P165P", "ID number AB1234567"): named so, its
# shape is enough, even where its check letter is wrong.
_NAMED_ID_CODE = re.compile(
    rf"((?i:{_ID_NAMES}))[^\n]{{0,30}}?(?<![\w-])(?=(?:[A-Z]{{0,19}}\d){{2}})(?=(?:\d{{0,19}}[A-Z]){{2}})[A-Z0-9]{{8,20}}(?![\w-])")


def _named_id_code(plain: str) -> bool:
    "A short name counts only in capitals, as ids are written: 'TIN', not 'the tin contains'."
    return any(len(m.group(1)) > 4 or m.group(1).isupper() for m in _NAMED_ID_CODE.finditer(plain))


def _national_id(plain: str, upper: str) -> bool:
    return bool(
        any(not _SAMPLE_WORDS.search(m.group()) and "format" not in m.group().lower() for m in _PASSPORT_NUMBER.finditer(plain))
        or _SSN.search(plain)
        or _NINO.search(plain)
        or _KOREAN_RRN.search(plain)
        or any(_valid_id(m.group(), modules) for pattern, modules in _ID_SHAPES for m in pattern.finditer(upper))
        or (_ID_CONTEXT.search(plain.lower()) and (_ID_WORDS.search(plain) or _plain_id(plain) or _named_id_code(plain)))
        or _checked_named_id(plain.lower(), upper)
    )


def _random_token(plain: str) -> bool:
    public = _PUBLIC_BLOB.sub(" ", plain)
    public = _URL.sub(_url_without_path, public)
    # a provider's sample key ("...bPxRfiCYEXAMPLEKEY") in a text that calls it a placeholder or example
    sample = bool(_TEMPLATE_WORDS.search(plain))
    return any(_looks_random(token) and not (sample and _placeholder_token(token)) and not _bitcoin_address(token)
               for token in _LONG_TOKEN.findall(public))


_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _bitcoin_address(token: str) -> bool:
    """A Bitcoin address ("1JUUoUB3...", "3J98t1Wp..."): its own base58check
    checksum holds, which a key's letters pass 1 time in 4 billion. An
    address is public, meant to be shared for payments."""
    if not 26 <= len(token) <= 35 or token[0] not in "13" or any(ch not in _BASE58 for ch in token):
        return False
    number = 0
    for ch in token:
        number = number * 58 + _BASE58.index(ch)
    try:
        raw = number.to_bytes(25, "big")
    except OverflowError:
        return False
    import hashlib

    checksum = hashlib.sha256(hashlib.sha256(raw[:21]).digest()).digest()[:4]
    return raw[0] in (0, 5) and checksum == raw[21:]


# A wallet's recovery phrase however it is introduced ("write these down: ...",
# in any language): 12 to 24 words of one BIP-39 word list whose last word
# carries a checksum of the rest. The checksum is what makes it safe to look
# everywhere: a chance run of twelve list words passes it 1 time in 16, and
# ordinary prose seldom has such a run at all. The lists of scripts that put
# spaces between words; and the Chinese lists, whose words are single
# characters, where a phrase is written with spaces between them ("十 燥 冶
# 伍 ..."), as Chinese prose never is. (mnemonic 0.21's Turkish and Russian
# lists fail their own phrases' checks.)
_MNEMONIC_LANGUAGES = ("english", "spanish", "french", "italian", "portuguese", "czech", "korean", "japanese")
_CHINESE_LANGUAGES = ("chinese_simplified", "chinese_traditional")
_MNEMONIC_LENGTHS = (12, 15, 18, 21, 24)
_WORD = re.compile(r"[^\W\d_]{2,16}")


# Unbounded: one key for the spaced lists, one for the Chinese ones.
@functools.lru_cache(maxsize=None)
def _mnemonic_word_lists(languages: tuple[str, ...] = _MNEMONIC_LANGUAGES) -> list[tuple[object, frozenset[str]]]:
    "(checker, its words) per BIP-39 list of ``languages``, loaded from the mnemonic package on first use."
    from mnemonic import Mnemonic

    lists = []
    for language in languages:
        checker = Mnemonic(language)
        lists.append((checker, frozenset(unicodedata.normalize("NFC", w) for w in checker.wordlist)))
    return lists


# Between two words of a phrase: spaces, or a number as phrases are listed
# ("1. witch 2. collapse", "1.concert 2.bamboo"). A comma ends a run:
# "apple, bread, butter, ..." is a list of twelve list words whose checksum
# passed, as 1 in 16 do.
_PHRASE_GAP = re.compile(r"\s{1,3}(?:\d{1,2}(?:[.):]\s{0,3}|\s{1,3}))?")


def _word_runs(plain: str) -> list[list[str]]:
    "Runs of words with only spaces or list numbers between them, lower-cased and NFC."
    runs: list[list[str]] = [[]]
    end = None
    for match in _WORD.finditer(plain):
        if end is not None and not _PHRASE_GAP.fullmatch(plain, end, match.start()):
            runs.append([])
        runs[-1].append(unicodedata.normalize("NFC", match.group().lower()))
        end = match.end()
    return [run for run in runs if len(run) >= _MNEMONIC_LENGTHS[0]]


def _holds_a_phrase(words: list[str], checker) -> bool:
    "Whether some 12 to 24 consecutive ``words`` (all of ``checker``'s list) pass its checksum."
    return any(checker.check(" ".join(words[start:start + size]))
               for size in _MNEMONIC_LENGTHS for start in range(len(words) - size + 1))


_SPACED_HANZI = re.compile(r"(?<![\u3400-\u9fff])(?:[\u3400-\u9fff][ \u3000]{1,3}){11,23}[\u3400-\u9fff](?![\u3400-\u9fff])")


# A text that names a wallet or its phrase, in several languages, or a
# count of words ("12 words for my Trezor").
_WALLET_WORDS = re.compile(
    r"(?i:\b(?:wallet|portefeuille|cartera|billetera|monedero|carteira|portafoglio|geldbörse|brieftasche|portfel\w{0,2}|кошел[её]к\w{0,2}|гаманець|cüzdan\w{0,3}"
    r"|trezor|ledger|metamask|seed|mnemonic|recovery phrase|secret phrase|phrase secrète|frase secreta|(?:12|15|18|21|24)[- ]words?)\b|钱包|錢包|ウォレット|지갑|助记词|助記詞)")


def _named_phrase(plain: str) -> bool:
    """Twelve words in a row, all of BIP-39's English list but one at most,
    in a text that names a wallet or its phrase: the phrase, even where its
    checksum fails or a word was misheard ("candle" for "candy"): what is
    left still opens the wallet to a search."""
    if not _WALLET_WORDS.search(plain):
        return False
    words = _passphrase_words()
    for run in _word_runs(plain):
        listed = [word in words for word in run]
        if any(sum(listed[start:start + 12]) >= 11 for start in range(len(run) - 11)):
            return True
    return False


def _wallet_mnemonic(plain: str) -> bool:
    "A run of one BIP-39 list's words, 12 to 24 of them in a row, with a valid checksum."
    runs = _word_runs(plain)
    if runs and any(in_list and _holds_a_phrase(list(words), checker)
                    for checker, vocabulary in _mnemonic_word_lists()
                    for run in runs
                    for in_list, words in itertools.groupby(run, key=vocabulary.__contains__)):
        return True
    return any(all(ch in vocabulary for ch in chars) and _holds_a_phrase(chars, checker)
               for chars in (match.group().split() for match in _SPACED_HANZI.finditer(plain))
               for checker, vocabulary in _mnemonic_word_lists(_CHINESE_LANGUAGES))


# Stripe's publishable keys are meant for the page's source: public by
# design, unlike its secret (sk_) and restricted (rk_) keys.
_PUBLISHABLE_KEY = re.compile(r"\bpk_(?:live|test)_[A-Za-z0-9]{16,200}")

# Numbers published as the examples everyone copies, valid by their checks
# and owned by nobody: Wikipedia's and the IBAN registry's sample IBANs, and
# the payment providers' test cards (Stripe's, PayPal's and Braintree's
# documentation). One passes where the text presents it as an example ("the
# sample IBAN in the bank's guide", "the documented DE89 ..."); given as
# someone's own ("my IBAN is DE89 ...") it is read as any other, since a
# user may well test the filter with one.
_PUBLISHED_SAMPLE_NUMBERS = frozenset("""
GB82WEST12345698765432 DE89370400440532013000 GB29NWBK60161331926819 FR1420041010050500013M02606
4111111111111111 4242424242424242 4012888888881881 4000056655665556 4000000000000002
5555555555554444 5105105105105100 5200828282828210 2223003122003222
378282246310005 371449635398431 6011111111111117 6011000990139424 3566002020360505 30569309025904
""".split())


_SAMPLE_WORDS = re.compile(
    r"(?i:\b(?:examples?|samples?|documented|documentation|docs|guide|tutorial|test(?:s|ing)?|sandbox|demo|dummy|placeholder|e\.g\.)\b)")


def _published_sample(candidate: str, plain: str) -> bool:
    return re.sub(r"[\s-]", "", candidate).upper() in _PUBLISHED_SAMPLE_NUMBERS and bool(_SAMPLE_WORDS.search(plain))


def secret_reason(text: str) -> str | None:
    "What kind of secret the text holds, or None."
    text = _PUBLISHABLE_KEY.sub("<publishable-key>", text)
    plain = unicodedata.normalize("NFKC", strip_hiding_characters(text)).replace("\u00ad", "")
    token = _token_reason(plain)
    if token:  # before folding: most secrets written to memory are tokens
        return token
    return (_words_reason(fold_for_matching(text), plain) or _number_reason(plain)
            or ("a random-looking token (a key?)" if _random_token(plain) else None))


def _words_reason(folded: str, plain: str) -> str | None:
    "A password, a recovery phrase or a key named by its word."
    if (_password_in_prose(folded) or _password_beside_word(plain) or _generated_password_anywhere(plain)
            or _letters_after_word(folded, plain)):
        return "a password or code"
    if _wallet_mnemonic(plain) or _named_phrase(plain):
        return "a wallet recovery phrase"
    if _KEYWORD_HEX.search(folded) or _KEYWORD_UUID.search(folded):
        return "an API token or key"
    return None


def _number_reason(plain: str) -> str | None:
    "A card, bank account, IBAN or national id number."
    if _card_number(plain):
        return "a payment card number"
    if _domestic_account(plain):
        return "a bank account number"
    upper = plain.upper()
    if any(_iban_ok(m.group(1)) and not _published_sample(m.group(1), plain) for m in _IBAN.finditer(upper)):
        return "an IBAN"
    if _national_id(plain, upper):
        return "a national id number"
    return None


def _url_without_path(match: re.Match) -> str:
    "Links keep their query (where tokens hide), not their path (document ids)."
    url = match.group()
    query = url.find("?")
    return " " + (url[query:] if query >= 0 else "") + " "


def contains_secret(text: str) -> bool:
    "True when the text holds something that must never be stored."
    return secret_reason(text) is not None
