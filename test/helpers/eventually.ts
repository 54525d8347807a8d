/**
 * Waits until `check` holds, trying every 25 ms for at most `withinMs` (default 10 s), then
 * returns either way: the caller's assertion that follows shows what the server did instead. The
 * bound is generous on purpose: on a loaded machine the server's view (a stream seen closing, a
 * counter raised) can lag the client's by seconds; a passing check returns at once.
 *
 * @example
 * await eventually(async () => (await clientErrors('aborted')) > before)
 * expect(await clientErrors('aborted')).toBeGreaterThan(before)
 */
export async function eventually(check: () => Promise<boolean>, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
}
