// The header names the signed-in platform by the name it was created with, not its id. Nothing renames a
// platform, so the names are read once per process and again only for a platform made since.
import type { Ctx } from '../context.ts';
import { listPlatforms } from '../services/platforms.ts';

export type PlatformName = (platformId: string) => Promise<string>;

export function makePlatformNames(ctx: Ctx): PlatformName {
  const names = new Map<string, string>();
  return async (platformId) => {
    if (!names.has(platformId)) for (const p of await listPlatforms(ctx)) names.set(p.id, p.name);
    return names.get(platformId) ?? platformId;
  };
}
