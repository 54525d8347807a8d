import { z } from 'zod'

/**
 * The `cluster` section of stockroute.json (docs/scale-out.md): off unless present. Several daemons
 * on one API key share its request budget through Redis, and each (chain, wallet) is driven by the
 * one daemon holding its lease.
 */
export const clusterSettingsSchema = z.strictObject(
  {
    /** Redis 7, e.g. redis://127.0.0.1:6379 (`rediss://` for TLS). */
    redisUrl: z
      .string({ error: 'must be a redis:// URL such as redis://127.0.0.1:6379' })
      .regex(/^rediss?:\/\/\S+$/, 'must be a redis:// URL such as redis://127.0.0.1:6379'),
    /** The cluster's name: the prefix of its Redis keys; daemons of one cluster share it (default stockroute). */
    name: z
      .string()
      .regex(/^[\w.-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')
      .default('stockroute'),
    /** This daemon's name in the cluster (default: host-pid); unique among the cluster's daemons. */
    nodeId: z
      .string()
      .regex(/^[\w.-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')
      .optional(),
    /** A wallet lease's time to live, ms (default 10000): a dead daemon's wallets wait this long for a standby. */
    leaseTtlMs: z
      .number({ error: 'must be a whole number of ms from 1000 to 600000' })
      .int('must be a whole number of ms from 1000 to 600000')
      .min(1_000, 'must be a whole number of ms from 1000 to 600000')
      .max(600_000, 'must be a whole number of ms from 1000 to 600000')
      .default(10_000),
    /** The share of the key's rate (service.requestsPerSecond) the cluster uses, 0.1-1 (default 0.95). */
    keyBudgetShare: z
      .number({ error: 'must be a number from 0.1 to 1' })
      .min(0.1, 'must be a number from 0.1 to 1')
      .max(1, 'must be a number from 0.1 to 1')
      .default(0.95),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}: the fields are redisUrl, name, nodeId, leaseTtlMs, keyBudgetShare`
        : undefined,
  },
)

export type ClusterSettings = z.output<typeof clusterSettingsSchema>

/** How often a daemon renews its leases (and a standby tries to take them): four times a time to live. */
export const renewIntervalOf = (settings: Pick<ClusterSettings, 'leaseTtlMs'>): number =>
  Math.floor(settings.leaseTtlMs / 4)

/**
 * How long after a renewal was sent a lease is taken as surely held: the time to live less a fifth,
 * the margin for the two machines' clocks running at different rates and the renewal's own trip.
 */
export const safeLeaseMsOf = (settings: Pick<ClusterSettings, 'leaseTtlMs'>): number =>
  Math.floor(settings.leaseTtlMs * 0.8)
