import { importFolder } from '../kernel/folder-modules.ts';

/** Every module under domain/operations/kinds/: kinds.ts picks the kinds out. */
export const FOLDER_MODULES = await importFolder(new URL('./kinds/', import.meta.url));
