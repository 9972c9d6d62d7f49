// `node bin/mailtwin.js` as it starts without the start-up bundle (bin/bundle.js): the
// compiled modules of dist/, one file each, so `npm run bench -- startup` shows what the bundle
// saves. Plain JavaScript, run by Node alone like the bin script.
const { main } = await import('../dist/emulator/src/main.js');
process.exitCode = await main(process.argv.slice(2));
