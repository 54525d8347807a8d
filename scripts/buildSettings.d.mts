import type { BuildOptions } from 'esbuild'

export function inputsOfTheBuild(root: string): string
export const nodeBundle: BuildOptions
