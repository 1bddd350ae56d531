// What an API token may do. A token holds some of these; each route names the one it needs.
export const PERMISSIONS = ['VIEW', 'TRANSACT', 'MANAGE'] as const;
export type Permission = (typeof PERMISSIONS)[number];
