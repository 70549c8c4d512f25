// The API reference (/docs): Redoc renders the OpenAPI document named by the page (data-spec-url).
// Redoc's standalone bundle (/docs/assets/redoc.standalone.js) is served by this server from
// node_modules; nothing is loaded from anywhere else.
'use strict';
(function () {
  var element = document.getElementById('redoc');
  if (!element || typeof Redoc === 'undefined') return;
  Redoc.init(
    element.getAttribute('data-spec-url'),
    {
      hideDownloadButton: true,
      expandResponses: '200,201,202',
      jsonSampleExpandLevel: 3,
      scrollYOffset: 0,
      theme: {
        colors: { primary: { main: '#1f4f8f' }, text: { primary: '#1b1b1b' } },
        typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' }, code: { fontFamily: 'ui-monospace, monospace' } },
        sidebar: { textColor: '#1b1b1b' },
      },
    },
    element,
  );
})();
