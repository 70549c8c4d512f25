/**
 * The seeded reference lists (migrations/Migration20261122000002_reference_data.ts) as the document
 * states them: enums of `currency`, and the network and bank rules of creates. Reference lists change
 * only through migrations; test/integration/openapi.test.ts checks these against GET /v1/reference/*.
 */
export const REFERENCE_CURRENCIES = ['GHS', 'NGN', 'KES', 'UGX', 'TZS', 'RWF', 'XOF', 'ZAR', 'USD'].map((code) => ({ code }));

export const REFERENCE_MOMO_NETWORKS = [
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01', 'GHS'],
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b02', 'GHS'],
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b03', 'GHS'],
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b04', 'KES'],
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b05', 'KES'],
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b06', 'UGX'],
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b07', 'UGX'],
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b08', 'TZS'],
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b09', 'RWF'],
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b10', 'XOF'],
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b11', 'XOF'],
  ['3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b12', 'NGN'],
].map(([id, currency]) => ({ id: id as string, currency: currency as string }));

export const REFERENCE_BANKS = [
  ['GCB', 'GHS'], ['ECOGH', 'GHS'], ['STANBIC-GH', 'GHS'], ['ACCESS-NG', 'NGN'], ['GTB', 'NGN'], ['ZENITH', 'NGN'], ['KCB', 'KES'],
  ['EQUITY', 'KES'], ['STANBIC-UG', 'UGX'], ['CRDB', 'TZS'], ['BK', 'RWF'], ['SGBS', 'XOF'], ['FNB', 'ZAR'],
].map(([code, currency]) => ({ code: code as string, currency: currency as string }));
