import { startMailtwin } from 'mailtwin/testing';

/** Starts one emulator for the whole run; workers inherit its address in the environment. */
export default async function globalSetup() {
  const server = await startMailtwin(); // in this process, on a free port
  Object.assign(process.env, server.env);
  globalThis.mailtwinServer = server;
}
