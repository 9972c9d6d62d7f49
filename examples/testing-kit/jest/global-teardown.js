export default async function globalTeardown() {
  await globalThis.mailtwinServer?.stop();
}
