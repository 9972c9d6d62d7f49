/** How often the server looks whether its launcher is still there. */
const WATCH_INTERVAL_MS = 500;

/**
 * Calls `onGone` once the process that launched the server has gone away (it is re-parented),
 * when a package manager launched it: `npm start` and `npx mailtwin serve` run it under `sh -c`,
 * and npm forwards SIGINT/SIGTERM to that shell only. Debian's dash dies of a SIGTERM without
 * passing it on, and a launcher killed with SIGKILL passes nothing on, so without this the
 * server would go on listening with nobody to stop it. A server started directly (`node
 * bin/mailtwin.js serve &`, under nohup or a service manager) is left alone: outliving its
 * shell may be the point there. Returns a function that stops watching.
 */
export function watchLauncher(
  onGone: (launcherPid: number) => void,
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  const launcher = process.ppid;
  // npm, npx, yarn and pnpm all set npm_lifecycle_event for what they run.
  if (env['npm_lifecycle_event'] === undefined || launcher <= 1) return () => {};
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    onGone(launcher);
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
