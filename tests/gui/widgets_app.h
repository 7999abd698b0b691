#pragma once
// The widgets' tests' QApplication, made on first use: drawn offscreen (CI has no display) and
// under its own organization name, so that the user's recent files stay untouched.
#include <QApplication>

namespace sb::viewer::test {

inline QApplication& widgets_app() {
  static int argc = 1;
  static char name[] = "gui_widgets_test";
  static char* argv[] = {name, nullptr};
  static QApplication* instance = [] {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication::setOrganizationName("stagebench-test");
    return new QApplication(argc, argv);
  }();
  return *instance;
}

}  // namespace sb::viewer::test
