// PLACEHOLDER (scaffolding, to be replaced before commit)
import type { Route } from '../route.js'

export const sandboxAdminRoutes: Route[] = []
