// Backups: the catalog of encrypted archives. The archive format and its
// restore land with the backup issue; until then the screen says so.

import blessed from 'blessed';
import type { KeyEvent } from '../widgets/text-input.js';
import type { AppContext, HelpKey, Screen } from './screen.js';

export class BackupsScreen implements Screen {
  readonly title = 'Backups';
  readonly root: blessed.Widgets.BoxElement;

  constructor(private app: AppContext) {
    this.root = blessed.box({ parent: app.screen, top: 1, left: 0, width: '100%', bottom: 2, tags: true, hidden: true });
  }

  onSummary(): void {}

  paint(): void {
    const t = this.app.theme;
    this.root.setContent(
      [
        '',
        ` ${t.bold('No backups yet.')}`,
        '',
        ` ${t.dim('Encrypted, verified backups (age + zstd + tar) are not available in this version of cleanerx.')}`,
        ` ${t.dim('Nothing has been deleted, so nothing needs restoring.')}`,
      ].join('\n'),
    );
  }

  handleKey(_ch: string | undefined, _key: KeyEvent): boolean {
    return false;
  }

  keys(): HelpKey[] {
    return [{ keys: 'v r D', does: 'verify, restore, delete a backup', disabled: 'backups are not available in this version' }];
  }
}
