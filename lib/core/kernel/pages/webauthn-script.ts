// The passkey script of the built-in sign-in page: inline, carried by the response's CSP nonce, no third-party code.
// For every form marked `data-webauthn-options` it runs the ceremony on submit (options from the server, then
// navigator.credentials.create/get, then the form is posted with `action` and `data`), and starts conditional UI
// (autofill) on load when the browser offers it, aborting that when the user submits the form. A rate-limited click
// reloads the page with `error=RateLimited` so it shows the wait.

/** The script's source (plain ES2017, no imports). */
export const WEBAUTHN_PAGE_SCRIPT = `(() => {
  const enc = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  const dec = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)).buffer;
  const creation = (o) => ({ ...o, challenge: dec(o.challenge), user: { ...o.user, id: dec(o.user.id) },
    excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, type: "public-key", id: dec(c.id) })) });
  const request = (o) => ({ ...o, challenge: dec(o.challenge),
    allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, type: "public-key", id: dec(c.id) })) });
  const json = (c) => {
    const r = c.response, out = { id: c.id, rawId: enc(c.rawId), type: c.type, clientExtensionResults: c.getClientExtensionResults(),
      authenticatorAttachment: c.authenticatorAttachment || undefined, response: { clientDataJSON: enc(r.clientDataJSON) } };
    if (r.attestationObject) { out.response.attestationObject = enc(r.attestationObject); out.response.transports = r.getTransports ? r.getTransports() : []; }
    else { out.response.authenticatorData = enc(r.authenticatorData); out.response.signature = enc(r.signature);
      if (r.userHandle) out.response.userHandle = enc(r.userHandle); }
    return out;
  };
  const options = async (form, query) => {
    const res = await fetch(form.dataset.webauthnOptions + "?" + new URLSearchParams(query), { credentials: "same-origin" });
    if (!res.ok) throw Object.assign(new Error("options"), { status: res.status, retry: res.headers.get("Retry-After") });
    return res.json();
  };
  const finish = (form, action, credential) => {
    form.elements.namedItem("action").value = action;
    form.elements.namedItem("data").value = JSON.stringify(json(credential));
    HTMLFormElement.prototype.submit.call(form);
  };
  for (const form of document.querySelectorAll("form[data-webauthn-options]")) {
    let conditional;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (conditional) conditional.abort();
      const query = {};
      for (const el of form.querySelectorAll("input[data-form-field]")) if (el.value) query[el.name] = el.value;
      try {
        const { action, options: o } = await options(form, query);
        const credential = action === "register"
          ? await navigator.credentials.create({ publicKey: creation(o) })
          : await navigator.credentials.get({ publicKey: request(o) });
        if (credential) finish(form, action, credential);
      } catch (error) {
        form.dataset.webauthnError = String(error && error.name || error);
        // Refused by the rate limit: show the sign-in page's "Try again in N minutes." (only on a click, never from
        // the conditional request on load, which would reload forever).
        if (error && error.status === 429) {
          const url = new URL(location.href);
          url.searchParams.set("error", "RateLimited");
          url.searchParams.set("retry", error.retry || "");
          location.assign(url.href);
        }
      }
    });
    if (form.dataset.conditional === "true" && window.PublicKeyCredential && PublicKeyCredential.isConditionalMediationAvailable) {
      PublicKeyCredential.isConditionalMediationAvailable().then(async (available) => {
        if (!available) return;
        conditional = new AbortController();
        const { options: o } = await options(form, { action: "authenticate" });
        const credential = await navigator.credentials.get({ mediation: "conditional", publicKey: request(o), signal: conditional.signal });
        if (credential) finish(form, "authenticate", credential);
      }).catch(() => {});
    }
  }
})();`
