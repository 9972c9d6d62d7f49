-- Values of the emulator itself kept with the data, one row per name. The control plane's clock
-- keeps its offset here (and the latest instant it showed), so a restart on the same --db file
-- does not move time back (spec/control.yaml, /clock). The control plane's reset leaves them.
CREATE TABLE settings (
  name   TEXT PRIMARY KEY,
  value  TEXT NOT NULL
);
