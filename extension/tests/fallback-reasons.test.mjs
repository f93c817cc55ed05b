// common/fallback-reasons.js: the fallback reasons the page's script acts on and the handed-back error name, which
// the background and the popup import; the classic scripts that cannot import them keep copies, held to it here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as reasons from '../common/fallback-reasons.js';
// Puts the message checks on the global, where content/relay.js reads them (as in its isolated world).
import '../common/relay-shared.js';

const require = createRequire(import.meta.url);

test('the relay follows the shared fallback reasons', () => {
  const relay = require('../content/relay.js');
  assert.deepEqual([relay.ANOTHER_WAY, relay.PROXY, relay.CALL_AGAIN], [reasons.ANOTHER_WAY, reasons.PROXY, reasons.CALL_AGAIN]);
});

test('the page world follows the shared fallback reasons and knows the shared handed-back name', () => {
  assert.equal(require('../page/below.js').ANOTHER_WAY, reasons.ANOTHER_WAY);
  const proxyPath = require('../page/proxy-path.js');
  assert.deepEqual([proxyPath.PROXY, proxyPath.CALL_AGAIN, proxyPath.HANDED_BACK],
    [reasons.PROXY, reasons.CALL_AGAIN, reasons.HANDED_BACK]);
});
