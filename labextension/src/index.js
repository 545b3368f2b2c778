// The course's JupyterLab extension: nbgrader's Validate button and its report, in the notebook's
// language.
//
// nbgrader's own button (@jupyter/nbgrader:validate-assignment) writes its label, its dialog and
// every sentence of its report in English, with no translator to hand them to. This plug-in does
// what it does, in the words of the notebook's language (its metadata's autograd_lessons.language):
// the same place on the toolbar, the same server call (nbgrader's /assignments/validate, which runs
// the notebook as grading does), the same report. Its words are the [validate] section of
// lessons/locale/<lang>.toml, served by the course's server extension (lessons/lab_language.py,
// /lessons/api/validate/<lang>). The students' configuration (lessons/lab_config/student) turns
// nbgrader's button off and this one on; the instructor's keeps nbgrader's.
//
// Built with JupyterLab's builder (`jupyter labextension build .`, see README.md) into
// lessons/labextension, which `pip install` puts where JupyterLab finds prebuilt extensions.

import { Dialog, ToolbarButton } from '@jupyterlab/apputils';
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { DisposableDelegate } from '@lumino/disposable';
import { Widget } from '@lumino/widgets';

const PLUGIN = '@autograd-lessons/lab:validate';

// nbgrader's own sentences inside a report (nbgrader/validator.py), and the course's key for each
const NBGRADER = {
  'You did not provide a response.': 'no_response',
  'Partial credit; passed some but not all of the tests': 'partial'
};

async function request(path, init) {
  const settings = ServerConnection.makeSettings();
  const response = await ServerConnection.makeRequest(
    URLExt.join(settings.baseUrl, path),
    init || {},
    settings
  );
  const data = await response.json();
  if (!response.ok) {
    throw new Error(data.message || response.statusText);
  }
  return data;
}

const known = {};

/** The words of the button and its report in `lang` (asked once per language). */
export function words(lang) {
  if (!known[lang]) {
    known[lang] = request(`lessons/api/validate/${encodeURIComponent(lang)}`);
  }
  return known[lang];
}

function fill(template, fields) {
  return template.replace(/\{(\w+)\}/g, (all, name) => (name in fields ? fields[name] : all));
}

function paragraph(text) {
  const p = document.createElement('p');
  p.textContent = text;
  return p;
}

function block(text) {
  const div = document.createElement('div');
  div.classList.add('jp-RenderedText');
  const pre = document.createElement('pre');
  pre.textContent = text;
  div.append(pre);
  return div;
}

/** The report of nbgrader's validation `answer` ({success, value}) in the words `w`: its body and
 * whether the notebook passed ('success', 'failed' or 'error'). */
export function report(answer, w) {
  const body = document.createElement('div');
  body.id = 'validation-message';
  if (answer.success !== true) {
    body.append(paragraph(w.error), block(String(answer.value)));
    return { body, outcome: 'error' };
  }
  const result = typeof answer.value === 'string' ? JSON.parse(answer.value) : answer.value;
  if (result.type_changed !== undefined) {
    for (const cell of result.type_changed) {
      const kind = type => w[type] || type;
      body.append(paragraph(fill(w.type_changed, { old: kind(cell.old_type), new: kind(cell.new_type) })),
        block(cell.source));
    }
    return { body, outcome: 'failed' };
  }
  if (result.changed !== undefined) {
    for (const cell of result.changed) {
      body.append(paragraph(w.changed), block(cell.source));
    }
    return { body, outcome: 'failed' };
  }
  if (result.passed !== undefined) {
    for (const cell of result.passed) {
      body.append(paragraph(w.passed), block(cell.source));
    }
    return { body, outcome: 'success' };
  }
  if (result.failed !== undefined) {
    for (const cell of result.failed) {
      body.append(paragraph(w.failed), block(cell.source));
      const said = NBGRADER[String(cell.raw_error || '').trim()];
      if (said) {
        body.append(block(w[said]));
      } else {
        // nbgrader's HTML of the cell's error (nbconvert's ansi2html, which escapes the text)
        const error = document.createElement('div');
        error.classList.add('jp-RenderedText');
        const pre = document.createElement('pre');
        pre.innerHTML = cell.error;
        error.append(pre);
        body.append(error);
      }
    }
    return { body, outcome: 'failed' };
  }
  body.append(paragraph(w.success));
  return { body, outcome: 'success' };
}

function show(title, body, outcome, w) {
  const dialog = new Dialog({
    title,
    body: new Widget({ node: body }),
    buttons: [Dialog.okButton({ label: w.ok })]
  });
  dialog.addClass('lessons-ValidateDialog');
  dialog.node.dataset.outcome = outcome;
  return dialog.launch();
}

function language(panel) {
  const settings = panel.context.model.getMetadata('autograd_lessons');
  return (settings && typeof settings.language === 'string' && settings.language) || 'en';
}

class ValidateButton extends ToolbarButton {
  constructor(panel, w) {
    super({
      className: 'validate-button lessons-validate',
      label: w.button,
      tooltip: w.tooltip,
      onClick: () => this.validate()
    });
    this.panel = panel;
    this.w = w;
    this.busy = false;
  }

  label(text) {
    const node = this.node.querySelector('.jp-ToolbarButtonComponent-label');
    if (node) {
      node.textContent = text;
    }
  }

  async validate() {
    if (this.busy) {
      return;
    }
    const w = this.w;
    this.busy = true;
    try {
      this.label(w.saving);
      try {
        await this.panel.context.save();
      } catch (error) {
        await show(w.title, paragraph(w.cannot_save), 'error', w);
        return;
      }
      this.label(w.validating);
      let answer;
      try {
        answer = await request('assignments/validate', {
          method: 'POST',
          body: JSON.stringify({ path: this.panel.context.path })
        });
      } catch (error) {
        await show(w.title, paragraph(fill(w.cannot_validate, { error: String(error.message || error) })), 'error', w);
        return;
      }
      const { body, outcome } = report(answer, w);
      await show(w.title, body, outcome, w);
    } finally {
      this.label(w.button);
      this.busy = false;
    }
  }
}

/** Each notebook's toolbar gets the button where nbgrader puts its own: before the spacer. */
class ButtonExtension {
  createNew(panel) {
    let button = null;
    panel.context.ready
      .then(() => words(language(panel)))
      .then(w => {
        if (panel.isDisposed) {
          return;
        }
        button = new ValidateButton(panel, w);
        let index = 0;
        for (const item of panel.toolbar.children()) {
          if (item.node.classList.contains('jp-Toolbar-spacer')) {
            break;
          }
          index++;
        }
        panel.toolbar.insertItem(index, 'lessonsValidate', button);
      })
      .catch(error => console.error(`${PLUGIN}: ${error}`));
    return new DisposableDelegate(() => {
      if (button) {
        button.dispose();
      }
    });
  }
}

const plugin = {
  id: PLUGIN,
  description: "nbgrader's Validate button and its report, in the notebook's language.",
  autoStart: true,
  activate: app => {
    app.docRegistry.addWidgetExtension('Notebook', new ButtonExtension());
  }
};

export default plugin;
