// The accountant portal's one script (served as a static file: the Content-Security-Policy allows
// no inline script). It keeps the sign-in token in sessionStorage (this tab only, never a cookie,
// never in a URL), loads each page's server-rendered view with `Authorization: Bearer`, posts the
// request form as JSON, and asks the API for a fresh download link when Download is clicked.
(() => {
  const TOKEN_KEY = 'pbs-portal-token';
  const PKCE_KEY = 'pbs-portal-pkce';
  const body = document.body;
  const base = body.dataset.base || '/portal';
  const apiBase = body.dataset.api || '';

  /** The saved token, or null when there is none or it has expired. */
  function readToken() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(TOKEN_KEY) || 'null');
      if (saved && typeof saved.token === 'string' && saved.expiresAt > Date.now()) return saved.token;
    } catch {
      // A value that is not ours is dropped below.
    }
    sessionStorage.removeItem(TOKEN_KEY);
    return null;
  }

  function saveToken(token, expiresInSeconds) {
    const expiresAt = Date.now() + Math.max(0, Number(expiresInSeconds) - 30) * 1000;
    sessionStorage.setItem(TOKEN_KEY, JSON.stringify({ token, expiresAt }));
  }

  function toSignIn() {
    location.assign(`${base}/sign-in`);
  }

  class NotSignedIn extends Error {}

  /** fetch with the token; a missing or refused token sends the person to sign in. */
  async function call(url, init = {}) {
    const token = readToken();
    if (token === null) {
      toSignIn();
      throw new NotSignedIn();
    }
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    const response = await fetch(url, { ...init, headers, credentials: 'omit', cache: 'no-store' });
    if (response.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      toSignIn();
      throw new NotSignedIn();
    }
    return response;
  }

  const main = document.getElementById('main');
  let refreshTimer;

  /** Puts a server-rendered view in place (parsed inert: scripts in it would not run). */
  function show(html) {
    const parsed = new DOMParser().parseFromString(html, 'text/html');
    main.replaceChildren(...parsed.body.childNodes);
    main.setAttribute('aria-busy', 'false');
    const root = main.firstElementChild;
    if (root?.dataset.title) document.title = `${root.dataset.title} · pbs-export reports`;
    clearTimeout(refreshTimer);
    const refresh = main.querySelector('[data-refresh]');
    if (refresh) refreshTimer = setTimeout(() => load(false), Number(refresh.dataset.refresh) * 1000);
  }

  function showStatus(scope, message) {
    const status = scope.querySelector('[data-status]');
    if (status) status.textContent = message;
  }

  /** Loads the page's view; `first` moves focus to its heading once. */
  async function load(first) {
    try {
      const response = await call(main.dataset.view);
      show(await response.text());
      if (first && location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
    } catch (error) {
      if (!(error instanceof NotSignedIn)) {
        main.replaceChildren(
          Object.assign(document.createElement('p'), {
            textContent: 'The page could not be loaded; try again.',
          }),
        );
      }
    }
  }

  /** The form's fields as lists of values (checkbox groups have several). */
  function formFields(form) {
    const data = new FormData(form);
    const fields = {};
    for (const name of new Set(data.keys())) fields[name] = data.getAll(name).map(String);
    return fields;
  }

  async function submitRequest(form) {
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const response = await call(form.action, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fields: formFields(form) }),
      });
      const next = response.headers.get('x-portal-location');
      if (next) {
        const target = new URL(next, location.href);
        // The same page with another #fragment: assigning it would only scroll, and the view
        // would still show what it showed before the form (a close not yet listed): load it again.
        if (target.pathname === location.pathname && target.search === location.search) {
          history.replaceState(null, '', target.href);
          await load(false);
          if (target.hash) document.getElementById(target.hash.slice(1))?.scrollIntoView();
          return;
        }
        location.assign(next);
        return;
      }
      show(await response.text());
      main.querySelector('[aria-invalid=true]')?.focus();
    } catch (error) {
      if (!(error instanceof NotSignedIn)) button.disabled = false;
    }
  }

  /** The files a download button's set lists with fresh links: a report set's, or a restatement's. */
  async function filesOf(button) {
    const { restatement, profile, job } = button.dataset;
    if (restatement === undefined) {
      const response = await call(`${apiBase}/reports/${encodeURIComponent(job)}`);
      const answer = await response.json();
      return response.ok ? answer.files || [] : [];
    }
    const response = await call(`${apiBase}/closes?${new URLSearchParams({ profile }).toString()}`);
    const answer = await response.json();
    const found = (answer.restatements || []).find((item) => item.prefix === restatement);
    return response.ok && found ? found.files || [] : [];
  }

  /** Download: a fresh presigned link from the API, at the moment of the click. */
  async function download(button) {
    button.disabled = true;
    try {
      const file = (await filesOf(button)).find((item) => item.name === button.dataset.file);
      if (!file) throw new Error('no link');
      location.assign(file.url);
    } catch (error) {
      if (!(error instanceof NotSignedIn))
        button.after(
          Object.assign(document.createElement('span'), {
            className: 'error',
            textContent: ' The link could not be made; try again.',
          }),
        );
    } finally {
      button.disabled = false;
    }
  }

  /**
   * Download all: the API builds the set's zip (each file checked against the manifest) and
   * answers a presigned link to it; a set that differs from its manifest gets no zip.
   */
  async function downloadAll(button) {
    button.disabled = true;
    let reason = ' The zip could not be made; try again.';
    try {
      const url = `${apiBase}/reports/${encodeURIComponent(button.dataset.job)}/archive`;
      const response = await call(url, { method: 'POST' });
      const answer = await response.json();
      if (answer.error?.code === 'archive_failed')
        reason = ' A file of this set differs from its manifest: no zip was made. Tell your administrator.';
      if (!response.ok || !answer.url) throw new Error('no zip');
      location.assign(answer.url);
    } catch (error) {
      if (!(error instanceof NotSignedIn))
        button.after(
          Object.assign(document.createElement('span'), { className: 'error', textContent: reason }),
        );
    } finally {
      button.disabled = false;
    }
  }

  /**
   * Verify this set: the portal's verification view (which reads every byte of the set) loaded
   * into the place beside the button, only when it is pressed.
   */
  async function verify(button) {
    const place = document.getElementById(button.getAttribute('aria-controls'));
    if (!place) return;
    button.disabled = true;
    place.textContent = ' Verifying… (every file is read)';
    try {
      const response = await call(button.dataset.verify);
      const parsed = new DOMParser().parseFromString(await response.text(), 'text/html');
      place.replaceChildren(...parsed.body.childNodes);
    } catch (error) {
      if (!(error instanceof NotSignedIn)) place.textContent = ' The set could not be verified; try again.';
    } finally {
      button.disabled = false;
    }
  }

  async function devSignIn(form) {
    const profiles = new FormData(form).getAll('profiles').map(String);
    const response = await fetch(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ profiles }),
      credentials: 'omit',
    });
    const answer = await response.json();
    if (!response.ok) {
      showStatus(form, answer.error?.reason || 'The sign-in failed.');
      return;
    }
    saveToken(answer.token, answer.expiresIn);
    location.assign(base);
  }

  const base64url = (bytes) =>
    btoa(String.fromCharCode(...new Uint8Array(bytes)))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  const randomText = (length) => base64url(crypto.getRandomValues(new Uint8Array(length)));
  const redirectUri = () => `${location.origin}${base}/callback`;

  /** Authorization code flow with PKCE: the verifier stays in this tab. */
  async function oauthSignIn() {
    const verifier = randomText(48);
    const state = randomText(16);
    const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
    sessionStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, state }));
    const url = new URL(body.dataset.authorizeUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: body.dataset.clientId,
      redirect_uri: redirectUri(),
      scope: body.dataset.scopes,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    location.assign(url.toString());
  }

  async function oauthCallback() {
    const params = new URLSearchParams(location.search);
    // The code leaves the address bar and the history at once.
    history.replaceState(null, '', location.pathname);
    const saved = JSON.parse(sessionStorage.getItem(PKCE_KEY) || 'null');
    sessionStorage.removeItem(PKCE_KEY);
    if (!saved || params.get('state') !== saved.state || !params.get('code')) {
      showStatus(document, 'The sign-in could not be completed. Sign in again.');
      return;
    }
    const response = await fetch(body.dataset.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: body.dataset.clientId,
        code: params.get('code'),
        redirect_uri: redirectUri(),
        code_verifier: saved.verifier,
      }),
      credentials: 'omit',
    });
    const tokens = await response.json().catch(() => ({}));
    if (!response.ok || typeof tokens.access_token !== 'string') {
      showStatus(document, 'The sign-in could not be completed. Sign in again.');
      return;
    }
    saveToken(tokens.access_token, tokens.expires_in);
    location.replace(base);
  }

  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const downloadButton = target?.closest('button[data-download]');
    if (downloadButton) void download(downloadButton);
    const downloadAllButton = target?.closest('button[data-download-all]');
    if (downloadAllButton) void downloadAll(downloadAllButton);
    const verifyButton = target?.closest('button[data-verify]');
    if (verifyButton) void verify(verifyButton);
    if (target?.closest('[data-sign-out]')) {
      sessionStorage.removeItem(TOKEN_KEY);
      toSignIn();
    }
    if (target?.closest('[data-oauth-sign-in]')) void oauthSignIn();
  });

  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    if (form.matches('[data-submit]')) {
      event.preventDefault();
      void submitRequest(form);
    } else if (form.matches('[data-dev-sign-in]')) {
      event.preventDefault();
      void devSignIn(form);
    }
  });

  if (body.dataset.page === 'view' && main) void load(true);
  if (body.dataset.page === 'callback') void oauthCallback();
})();
