/**
 * A commander action that imports its implementation only when the command runs, so that defining
 * a command (its name, options and help) loads nothing of what running it needs: `load` is a dynamic
 * `import()` of the command's action module, `name` the function of it to call with what commander
 * passes (the operands, the options, the command). Errors reach `main` as the action's would.
 *
 * @example
 * program.command('chains').action(lazyAction(() => import('./chainsAction.js'), 'listChains'))
 */
export function lazyAction<Name extends string, Module extends Record<Name, (...args: never[]) => unknown>>(
  load: () => Promise<Module>,
  name: Name,
): (...args: Parameters<Module[Name]>) => Promise<void> {
  return async (...args) => {
    const implementation = await load()
    await implementation[name](...args)
  }
}
