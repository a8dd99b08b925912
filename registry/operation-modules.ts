import { importFolder } from '../domain/kernel/folder-modules.ts';

/** Every module under registry/operations/: the registry picks the operations out (registry/index.ts). */
export const FOLDER_MODULES = await importFolder(new URL('./operations/', import.meta.url));
