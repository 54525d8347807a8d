import { dataFolderAccess } from '../../daemon/dataFolderAccess.js'
import { octalMode } from '../../store/ownerOnlyFiles.js'
import type { DoctorCheck } from './types.js'

/**
 * The `data-folder` check: whether other local users can reach the configuration's data folder
 * (`dataDir`: the ledger with its signed transactions, the log, the archives, the control token).
 * `fail` when they can read a file in it or change its files, `warn` when they can only list its
 * names, `ok` when only its owner can (or when there is none yet: the daemon creates it 0700). The
 * message gives the command that closes it (`chmod -R go-rwx <folder>`); nothing is changed.
 *
 * @example
 * const check = checkDataFolder({ dataDir: config.dataDir })
 * check.status // 'warn' for a folder of mode 0755 whose files are 0600
 */
export function checkDataFolder(parameters: { dataDir: string }): DoctorCheck {
  const access = dataFolderAccess(parameters.dataDir)
  if (access.status === 'missing' || access.status === 'ok')
    return {
      name: 'data-folder',
      status: 'ok',
      message: access.message,
      details: {
        dataDir: access.path,
        exists: access.status === 'ok',
        ...(access.status === 'ok' && access.mode !== undefined ? { mode: octalMode(access.mode) } : {}),
      },
    }
  return {
    name: 'data-folder',
    status: access.status,
    message: access.message,
    details: {
      dataDir: access.path,
      exists: true,
      mode: octalMode(access.mode),
      writableByOthers: access.writable,
      exposed: access.exposed,
      fix: access.fix,
    },
  }
}
