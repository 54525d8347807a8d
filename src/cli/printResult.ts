/** Prints `value` as JSON (bigints as decimal strings) or as the human text given. */
export function printResult(json: boolean | undefined, value: unknown, human: () => string): void {
  if (json) {
    process.stdout.write(
      `${JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v))}\n`,
    )
  } else {
    process.stdout.write(`${human()}\n`)
  }
}
