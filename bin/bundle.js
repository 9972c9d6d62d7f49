// The start-up bundle of a compiled entry (`npm run build` makes one for the emulator): the
// entry's module and every module it imports statically, ours with hono's, in one ES module
// under dist/bundle/, so Node resolves, reads and links one file instead of about 130 (90-130
// ms of a half-second start, `npm run bench -- startup`). Modules loaded on demand stay chunks
// of their own, loaded as before; every other package is imported from node_modules as usual.
// Each module keeps its own `import.meta.url` (the file it was compiled to), so files it reads
// beside itself are found. bin/compiled.js runs the bundle only while dist/ is current, which
// includes the lockfile, so the packages copied in are the versions installed.
import { readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { DIST, bundleName } from './compiled.js';

/** Pure ES modules with no files of their own to read: safe to copy into the bundle. */
const INLINED_PACKAGES = ['hono', '@hono/node-server'];

/** The package a bare import specifier names: `hono/utils/x` is `hono`, `@a/b/c` is `@a/b`. */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Bundles each compiled entry (a path under `dist`, dist/ or the build's staging folder, e.g.
 * `emulator/src/main.js`) with esbuild into its bundle/, all outputs in that one folder (so one
 * relative path per module serves whichever file it lands in), each entry as
 * `bundleName(entry)`. Paths inside are relative, so the folder may move whole. False when
 * esbuild is not installed.
 */
export async function bundleEntries(entries, dist = DIST) {
  const bundleDir = `${dist}bundle/`;
  let build;
  try {
    ({ build } = await import('esbuild'));
  } catch {
    return false; // an install without devDependencies: dist/'s modules serve
  }
  await build({
    entryPoints: entries.map((entry) => ({
      in: `${dist}${entry}`,
      out: bundleName(entry).replace(/\.js$/, ''),
    })),
    outdir: bundleDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Named by content as well: esbuild calls every shared chunk "chunk", and several modules
    // loaded on demand share code, so a name alone collides; an unchanged chunk keeps its name.
    chunkNames: '[name]-[hash]',
    logLevel: 'warning',
    plugins: [
      {
        name: 'mailtwin-bundle',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, ({ path }) =>
            path.startsWith('node:') || !INLINED_PACKAGES.includes(packageOf(path))
              ? { path, external: true }
              : undefined,
          );
          build.onLoad({ filter: /\.js$/ }, ({ path }) => {
            if (!path.startsWith(dist)) return undefined;
            const code = readFileSync(path, 'utf8');
            // Only the URL is given its module's own value; any other property would silently
            // describe the bundle's folder, so it stops the build instead.
            const other = /import\.meta(?!\.url\b)(\.\w+)?/.exec(code);
            if (other !== null) {
              throw new Error(
                `${relative(dist, path)} uses ${other[0]}: only import.meta.url keeps its meaning in the bundle`,
              );
            }
            const own = JSON.stringify(relative(bundleDir, path).split('\\').join('/'));
            return {
              contents: code.replaceAll('import.meta.url', `new URL(${own}, import.meta.url).href`),
              loader: 'js',
              resolveDir: dirname(path),
            };
          });
        },
      },
    ],
  });
  return true;
}
