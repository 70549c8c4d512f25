// The request console of the reference site (/docs/console). It sends to the sandbox API only: the
// base comes from the server (the form's data-api-base), never from the page's fields, and a path
// that would leave that origin is refused. A live key (svc_live_) is refused before anything is
// sent. The key lives in this script's variables and the password field alone: no cookie, no
// storage, not in the address, never sent to the web port.
'use strict';
(function () {
  var form = document.getElementById('console');
  if (!form) return;
  var apiBase = form.getAttribute('data-api-base');
  var keyField = document.getElementById('console-key');
  var methodField = document.getElementById('console-method');
  var pathField = document.getElementById('console-path');
  var bodyField = document.getElementById('console-body');
  var idemField = document.getElementById('console-idempotency');
  var message = document.getElementById('console-message');
  var statusLine = document.getElementById('console-status');
  var answer = document.getElementById('console-answer');

  var exampleField = document.getElementById('console-example');
  exampleField.addEventListener('change', function () {
    var chosen = exampleField.options[exampleField.selectedIndex];
    if (!chosen || !chosen.getAttribute('data-method')) return;
    methodField.value = chosen.getAttribute('data-method');
    pathField.value = chosen.getAttribute('data-path');
    bodyField.value = chosen.getAttribute('data-body');
  });

  function refuse(text) {
    message.textContent = text;
    keyField.setAttribute('aria-invalid', 'true');
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    message.textContent = '';
    keyField.removeAttribute('aria-invalid');
    var key = keyField.value.trim();
    if (key.indexOf('svc_live_') === 0) {
      refuse('Refused: this is a live key (svc_live_…). The console sends to the sandbox only; use a sandbox key (svc_test_…). Nothing was sent.');
      return;
    }
    if (!key) {
      refuse('Enter a sandbox key (svc_test_…).');
      return;
    }
    var path = pathField.value.trim();
    var url;
    try {
      url = new URL(path, apiBase);
    } catch (e) {
      url = null;
    }
    if (!url || url.origin !== apiBase || path.indexOf('/v1/') !== 0) {
      message.textContent = 'The path must be a sandbox API path starting with /v1/. Nothing was sent.';
      return;
    }
    var method = methodField.value;
    var headers = { Authorization: 'Bearer ' + key };
    var init = { method: method, headers: headers, mode: 'cors', credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer', redirect: 'error' };
    if (method === 'POST' || method === 'PATCH') {
      var body = bodyField.value.trim() || '{}';
      try {
        JSON.parse(body);
      } catch (e) {
        message.textContent = 'The body is not valid JSON. Nothing was sent.';
        return;
      }
      headers['Content-Type'] = 'application/json';
      init.body = body;
    }
    if (method === 'POST') headers['Idempotency-Key'] = idemField.value.trim() || crypto.randomUUID();
    statusLine.textContent = 'Sending ' + method + ' ' + url.pathname + url.search + ' …';
    answer.textContent = '';
    fetch(url.href, init).then(
      function (res) {
        return res.text().then(function (text) {
          var shown = text;
          try {
            shown = JSON.stringify(JSON.parse(text), null, 2);
          } catch (e) {
            // not JSON: shown as it came
          }
          var requestId = res.headers.get('Request-Id');
          statusLine.textContent = res.status + ' ' + res.statusText + (requestId ? ' · Request-Id ' + requestId : '');
          answer.textContent = shown;
        });
      },
      function () {
        statusLine.textContent = 'No answer: the sandbox API could not be reached.';
      },
    );
  });
})();
