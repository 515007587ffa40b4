import assert from 'node:assert/strict';
import { usernameOf } from './router.ts';

Deno.test('usernames are checked after percent-decoding', () => {
  assert.equal(usernameOf('alice'), 'alice');
  assert.equal(usernameOf('A.b-c_9'), 'A.b-c_9');
  assert.equal(usernameOf('%61lice'), 'alice');
  assert.equal(usernameOf('x'.repeat(64)), 'x'.repeat(64));
  for (const bad of ['', 'x'.repeat(65), 'bad%20name', 'a%2Fb', 'semi%3Bcolon', '%zz', '%C3%A9']) {
    assert.equal(usernameOf(bad), undefined, bad);
  }
});
